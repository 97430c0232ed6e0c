import {
  type Block,
  blockToUniv,
  checkMerkleRoot,
  DecodeError,
  type Network,
  parseBlock,
  parseTransaction,
  txToUniv,
} from "../bitcoin/index.ts";
import { NETWORK_NAMES } from "../config/schema.ts";
import { stringifyJson } from "../protocol/json/json.ts";
import type { CommandOutput } from "./commands.ts";
import { prettyCore } from "./pretty-json.ts";

export const DECODE_USAGE =
  "usage: blockgate decode <hex | -> [--network NAME] [--verbosity 1|2]   (- reads standard input)";

interface DecodeArgs {
  /** The hex from argv, or "-" for standard input. */
  source: string;
  network: Network;
  verbosity: 1 | 2;
}

function usage(problem?: string): CommandOutput {
  return { text: problem ? `decode: ${problem}\n${DECODE_USAGE}` : DECODE_USAGE, code: 2 };
}

function parseArgs(args: string[]): DecodeArgs | CommandOutput {
  let network = "mainnet";
  let verbosity = "2";
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const [flag, inline] = arg.startsWith("--") ? arg.split("=", 2) : [arg, undefined];
    const value = () => inline ?? args[++i] ?? "";
    if (flag === "--network" || flag === "-n") network = value();
    else if (flag === "--verbosity") verbosity = value();
    else if (arg.startsWith("-") && arg !== "-") return usage(`unknown option ${flag}`);
    else positionals.push(arg);
  }
  if (!(NETWORK_NAMES as readonly string[]).includes(network)) {
    return usage(`--network: one of ${NETWORK_NAMES.join(", ")}`);
  }
  if (verbosity !== "1" && verbosity !== "2") {
    return usage("--verbosity: 1 (txids) or 2 (transactions decoded)");
  }
  if (positionals.length !== 1) return usage();
  return {
    source: positionals[0]!,
    network: network as Network,
    verbosity: verbosity === "1" ? 1 : 2,
  };
}

/** Whether the command reads its hex from standard input (`blockgate decode -`). */
export function wantsStdin(args: string[]): boolean {
  const parsed = parseArgs(args);
  return "source" in parsed && parsed.source === "-";
}

/**
 * The bytes of hex text, or what is wrong with it (one line). Whitespace around it (a trailing
 * newline from `echo` or a file) is fine; inside it is not.
 */
function hexBytes(text: string, from: string): Uint8Array | string {
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

/**
 * `blockgate decode <hex | -> [--network NAME] [--verbosity 1|2]`. A block is told from a
 * transaction by its content: bytes that parse as exactly one block whose header's merkle root
 * commits to its transactions are a block (getblock's object); anything else is decoded as Core's
 * decoderawtransaction does. A transaction cannot pass for a block by accident: it would need its
 * bytes 36..67 to be the double SHA-256 merkle root of what follows. `stdinText` is standard input,
 * read by the caller when the source is `-`.
 */
export function runDecode(args: string[], stdinText?: string): CommandOutput {
  const parsed = parseArgs(args);
  if (!("source" in parsed)) return parsed;
  const fromStdin = parsed.source === "-";
  if (fromStdin && stdinText === undefined) return usage("standard input was not read");
  const bytes = hexBytes(
    fromStdin ? (stdinText ?? "") : parsed.source,
    fromStdin ? "standard input" : "the argument",
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
      code: 0,
    };
  } catch (err) {
    if (!(err instanceof DecodeError)) throw err;
    if (block !== null) {
      return {
        text: `decode: block ${block.hash}: its merkle root does not match its transactions`,
        code: 1,
      };
    }
    // Core's decoderawtransaction error for bytes that are no transaction.
    return { text: "error code: -22\nerror message:\nTX decode failed", code: 1 };
  }
}

function blockOf(bytes: Uint8Array): Block | null {
  try {
    return parseBlock(bytes);
  } catch (err) {
    if (err instanceof DecodeError) return null;
    throw err;
  }
}
