import { base32nopad } from "@scure/base";
import { isTokenShaped, TOKEN_PREFIX } from "./tokens.ts";

/** `bgt-` + the token's 32 bytes in lowercase base32: 56 characters, one DNS label. */
const DNS_TOKEN_RE = /^bgt-[a-z2-7]{52}$/;

/**
 * A token written as a DNS label, for the TLS server name of a stock Electrum wallet: the token's
 * own form (`bgt_` + base64url) carries capitals and `_`, which a client may lowercase or refuse
 * in a host name; this form survives both. Either is accepted where a server name carries a
 * token (src/routes/electrum/tls-listener.ts).
 */
export function tokenDnsLabel(token: string): string {
  const bytes = Buffer.from(token.slice(TOKEN_PREFIX.length), "base64url");
  return `bgt-${base32nopad.encode(bytes).toLowerCase()}`;
}

/** The token a server name's first label names: its DNS form decoded, else the label as it is. */
export function tokenOfDnsLabel(label: string): string {
  const lower = label.toLowerCase();
  if (!DNS_TOKEN_RE.test(lower)) return label;
  const bytes = base32nopad.decode(lower.slice(4).toUpperCase());
  const token = TOKEN_PREFIX + Buffer.from(bytes).toString("base64url");
  return isTokenShaped(token) ? token : label;
}
