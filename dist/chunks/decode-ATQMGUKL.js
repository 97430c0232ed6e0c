// Built by `npm run build` from src/ (scripts/build.mjs); do not edit.
import {
  parseTransaction,
  stringifyJson,
  txToUniv
} from "./chunk-RQ2HK2QQ.js";
import {
  NETWORK_NAMES
} from "./chunk-ONEYUPT7.js";

// src/cli/decode.ts
function runDecode(args) {
  let network = "mainnet";
  const rest = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--network" || arg === "-n") network = args[++i];
    else if (arg.startsWith("--network=")) network = arg.slice("--network=".length);
    else rest.push(arg);
  }
  if (!NETWORK_NAMES.includes(network)) {
    return { text: `--network: one of ${NETWORK_NAMES.join(", ")}`, code: 2 };
  }
  const hex = (rest[0] ?? "").trim();
  if (rest.length !== 1 || !/^([0-9a-fA-F]{2})+$/.test(hex)) {
    return { text: "usage: blockgate decode <hex> [--network NAME]", code: 2 };
  }
  try {
    const tx = parseTransaction(Buffer.from(hex, "hex"));
    return {
      text: prettyCore(stringifyJson(txToUniv(tx, { network, includeHex: false }))),
      code: 0
    };
  } catch {
    return { text: "error code: -22\nerror message:\nTX decode failed", code: 1 };
  }
}
function prettyCore(compact) {
  let out = "";
  let depth = 0;
  let inString = false;
  for (let i = 0; i < compact.length; i++) {
    const c = compact[i];
    if (inString) {
      out += c;
      if (c === "\\") out += compact[++i] ?? "";
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') {
      inString = true;
      out += c;
    } else if (c === "{" || c === "[") {
      const close = c === "{" ? "}" : "]";
      if (compact[i + 1] === close) {
        out += c + close;
        i++;
      } else {
        depth++;
        out += `${c}
${"  ".repeat(depth)}`;
      }
    } else if (c === "}" || c === "]") {
      depth--;
      out += `
${"  ".repeat(depth)}${c}`;
    } else if (c === ",") {
      out += `,
${"  ".repeat(depth)}`;
    } else if (c === ":") {
      out += ": ";
    } else {
      out += c;
    }
  }
  return out;
}
export {
  runDecode
};
