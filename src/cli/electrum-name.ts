import { tokenDnsLabel } from "../access/token-dns.ts";
import type { Config } from "../config/schema.ts";
import type { CommandOutput } from "./db-command.ts";

/**
 * `blockgate electrum-name <token> [network]`: the server name a stock Electrum wallet dials to
 * reach the TLS listener with this token (src/routes/electrum/tls-listener.ts), the token in its DNS form,
 * and Electrum's command line for it. Computed from the token and the config alone: no database,
 * no gateway. Without a network the name is `<token>.<suffix>`, for `electrum.tls.network`.
 */
export function runElectrumName(
  token: string,
  network: string | undefined,
  config: Config,
  json = false,
): CommandOutput {
  const tls = config.electrum.tls;
  const suffix = tls?.serverNameSuffix ?? "<electrum.tls.serverNameSuffix>";
  const label = tokenDnsLabel(token);
  const name = network ? `${label}.${network}.${suffix}` : `${label}.${suffix}`;
  const command = `electrum --server ${name}:${tls?.port ?? 50002}:s`;
  if (json) return { text: JSON.stringify({ name, command }, null, 2), code: 0 };
  return { text: `${name}\n\n${command}`, code: 0 };
}
