// Built by `npm run build` from src/ (scripts/build.mjs); do not edit.
import {
  TOKEN_PREFIX,
  isTokenShaped
} from "./chunk-BUEEPKH6.js";

// src/auth/token-dns.ts
import { base32nopad } from "@scure/base";
var DNS_TOKEN_RE = /^bgt-[a-z2-7]{52}$/;
function tokenDnsLabel(token) {
  const bytes = Buffer.from(token.slice(TOKEN_PREFIX.length), "base64url");
  return `bgt-${base32nopad.encode(bytes).toLowerCase()}`;
}
function tokenOfDnsLabel(label) {
  const lower = label.toLowerCase();
  if (!DNS_TOKEN_RE.test(lower)) return label;
  const bytes = base32nopad.decode(lower.slice(4).toUpperCase());
  const token = TOKEN_PREFIX + Buffer.from(bytes).toString("base64url");
  return isTokenShaped(token) ? token : label;
}

export {
  tokenDnsLabel,
  tokenOfDnsLabel
};
