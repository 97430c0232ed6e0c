// Built by `npm run build` from src/ (scripts/build.mjs); do not edit.
import {
  tokenDnsLabel
} from "./chunk-7VYBGATG.js";
import {
  isTokenShaped
} from "./chunk-BUEEPKH6.js";
import "./chunk-M6ZRZKCO.js";

// src/cli/electrum-name.ts
var USAGE = "usage: blockgate electrum-name <token> [network]";
function runElectrumName(args, config) {
  const [token, network, ...rest] = args;
  if (token === void 0 || rest.length > 0) return { text: USAGE, code: 2 };
  if (!isTokenShaped(token)) return { text: `not an access token (bgt_\u2026)
${USAGE}`, code: 2 };
  const tls = config.electrum.tls;
  const suffix = tls?.serverNameSuffix ?? "<electrum.tls.serverNameSuffix>";
  const label = tokenDnsLabel(token);
  const name = network ? `${label}.${network}.${suffix}` : `${label}.${suffix}`;
  return {
    text: `${name}

electrum --server ${name}:${tls?.port ?? 50002}:s`,
    code: 0
  };
}
export {
  runElectrumName
};
