// Built by `npm run build` from src/ (scripts/build.mjs); do not edit.
import {
  DecodeError,
  blockToUniv,
  checkMerkleRoot,
  parseBlock,
  parseTransaction,
  stringifyJson,
  txToUniv
} from "./chunk-A5KRFPS2.js";
import {
  NETWORK_NAMES
} from "./chunk-M6ZRZKCO.js";

// src/cli/pretty-json.ts
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

// src/cli/decode.ts
var DECODE_USAGE = "usage: blockgate decode <hex | -> [--network NAME] [--verbosity 1|2]   (- reads standard input)";
function usage(problem) {
  return { text: problem ? `decode: ${problem}
${DECODE_USAGE}` : DECODE_USAGE, code: 2 };
}
function parseArgs(args) {
  let network = "mainnet";
  let verbosity = "2";
  const positionals = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const [flag, inline] = arg.startsWith("--") ? arg.split("=", 2) : [arg, void 0];
    const value = () => inline ?? args[++i] ?? "";
    if (flag === "--network" || flag === "-n") network = value();
    else if (flag === "--verbosity") verbosity = value();
    else if (arg.startsWith("-") && arg !== "-") return usage(`unknown option ${flag}`);
    else positionals.push(arg);
  }
  if (!NETWORK_NAMES.includes(network)) {
    return usage(`--network: one of ${NETWORK_NAMES.join(", ")}`);
  }
  if (verbosity !== "1" && verbosity !== "2") {
    return usage("--verbosity: 1 (txids) or 2 (transactions decoded)");
  }
  if (positionals.length !== 1) return usage();
  return {
    source: positionals[0],
    network,
    verbosity: verbosity === "1" ? 1 : 2
  };
}
function wantsStdin(args) {
  const parsed = parseArgs(args);
  return "source" in parsed && parsed.source === "-";
}
function hexBytes(text, from) {
  const hex = text.trim();
  if (hex === "") return `${from} is empty: give the hex of a transaction or block`;
  const bad = /[^0-9a-fA-F]/.exec(hex);
  if (bad) {
    return `${from} is not hex (${JSON.stringify(bad[0])} at position ${bad.index + 1})`;
  }
  if (hex.length % 2 !== 0) {
    return `${from} has an odd number of hex digits (${hex.length}): a byte is two digits`;
  }
  return Buffer.from(hex, "hex");
}
function runDecode(args, stdinText) {
  const parsed = parseArgs(args);
  if (!("source" in parsed)) return parsed;
  const fromStdin = parsed.source === "-";
  if (fromStdin && stdinText === void 0) return usage("standard input was not read");
  const bytes = hexBytes(
    fromStdin ? stdinText ?? "" : parsed.source,
    fromStdin ? "standard input" : "the argument"
  );
  if (typeof bytes === "string") return { text: `decode: ${bytes}`, code: 2 };
  const block = blockOf(bytes);
  if (block !== null && checkMerkleRoot(block)) {
    try {
      const json = blockToUniv(block, { network: parsed.network, verbosity: parsed.verbosity });
      return { text: prettyCore(stringifyJson(json)), code: 0 };
    } catch (err) {
      if (!(err instanceof DecodeError)) throw err;
      return { text: `decode: block ${block.hash}: ${err.message} (try --network)`, code: 1 };
    }
  }
  try {
    const tx = parseTransaction(bytes);
    return {
      text: prettyCore(stringifyJson(txToUniv(tx, { network: parsed.network, includeHex: false }))),
      code: 0
    };
  } catch (err) {
    if (!(err instanceof DecodeError)) throw err;
    if (block !== null) {
      return {
        text: `decode: block ${block.hash}: its merkle root does not match its transactions`,
        code: 1
      };
    }
    return { text: "error code: -22\nerror message:\nTX decode failed", code: 1 };
  }
}
function blockOf(bytes) {
  try {
    return parseBlock(bytes);
  } catch (err) {
    if (err instanceof DecodeError) return null;
    throw err;
  }
}
export {
  DECODE_USAGE,
  runDecode,
  wantsStdin
};
