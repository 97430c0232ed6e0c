import { tokenDnsLabel } from "../access/token-dns.ts";
import { isTokenShaped } from "../access/tokens.ts";
import type { Config } from "../config/schema.ts";
import type { CommandOutput } from "./commands.ts";

const USAGE = "usage: blockgate electrum-name <token> [network]";

/**
 * `blockgate electrum-name <token> [network]`: the server name a stock Electrum wallet dials to
 * reach the TLS listener with this token (src/routes/electrum/tls-listener.ts), the token in its DNS form,
 * and Electrum's command line for it. Computed from the token and the config alone: no database,
 * no gateway. Without a network the name is `<token>.<suffix>`, for `electrum.tls.network`.
 */
export function runElectrumName(args: readonly string[], config: Config): CommandOutput {
  const [token, network, ...rest] = args;
  if (token === undefined || rest.length > 0) return { text: USAGE, code: 2 };
  if (!isTokenShaped(token)) return { text: `not an access token (bgt_…)\n${USAGE}`, code: 2 };
  const tls = config.electrum.tls;
  const suffix = tls?.serverNameSuffix ?? "<electrum.tls.serverNameSuffix>";
  const label = tokenDnsLabel(token);
  const name = network ? `${label}.${network}.${suffix}` : `${label}.${suffix}`;
  return {
    text: `${name}\n\nelectrum --server ${name}:${tls?.port ?? 50002}:s`,
    code: 0,
  };
}
