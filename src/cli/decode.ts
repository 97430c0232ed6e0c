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
import { stringifyJson } from "../protocol/json/json.ts";
import { network, oneOf } from "./checks.ts";
import { type CommandOutput, type CommandSpec, text, type Values } from "./db-command.ts";
import { prettyCore } from "./pretty-json.ts";

/** `blockgate decode`, as the command line parser knows it. */
export const DECODE_SPEC: CommandSpec = {
  summary: "decode a raw transaction or block, as Core does",
  usage: "<hex | -> [--network NAME] [--verbosity 1|2]",
  operands: [
    {
      name: "hex",
      description: "the transaction's or block's hex, or - to read it from standard input",
    },
  ],
  options: [
    {
      name: "network",
      short: "-n",
      value: "NAME",
      description: "the network its addresses are written for (default mainnet)",
      check: network,
    },
    {
      name: "verbosity",
      value: "1|2",
      description: "a block's transactions as txids (1) or decoded (2, the default)",
      check: oneOf(["1", "2"]),
    },
  ],
  examples: [
    "decode 0100000001c997a5e5…",
    "xxd -p block.raw | tr -d '\\n' | blockgate decode - --verbosity 1",
  ],
};

export interface DecodeOptions {
  network: Network;
  verbosity: 1 | 2;
}

/** The options as parsed (and checked) for `decode`. */
export function decodeOptions(values: Values): DecodeOptions {
  return {
    network: (text(values, "network") ?? "mainnet") as Network,
    verbosity: text(values, "verbosity") === "1" ? 1 : 2,
  };
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
export function decodeHex(
  source: string,
  parsed: DecodeOptions,
  stdinText?: string,
): CommandOutput {
  const fromStdin = source === "-";
  if (fromStdin && stdinText === undefined) throw new Error("standard input was not read");
  const bytes = hexBytes(
    fromStdin ? (stdinText ?? "") : source,
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
