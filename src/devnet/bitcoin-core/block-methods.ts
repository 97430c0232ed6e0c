import { LosslessNumber } from "lossless-json";
import {
  blockToUniv,
  getDifficulty,
  type TxJson,
  toHex,
  txToUniv,
  univalueDouble,
} from "../../bitcoin/index.ts";
import { RPC_INVALID_ADDRESS_OR_KEY, RPC_INVALID_PARAMETER } from "../../protocol/core/params.ts";
import type { Json } from "../../protocol/json/json.ts";
import type { ChainBlock } from "../chain.ts";
import { blockContext } from "./block-context.ts";
import type { CoreContext } from "./context.ts";
import type { RpcMethod } from "./http.ts";
import { hashArg, intArg, readParams } from "./params.ts";
import { RpcError } from "./rpc-error.ts";

/** Keys blockheaderToJSON writes, in its order; getblock's object starts with the same. */
const HEADER_KEYS = [
  "hash",
  "confirmations",
  "height",
  "version",
  "versionHex",
  "merkleroot",
  "time",
  "mediantime",
  "nonce",
  "bits",
  "target",
  "difficulty",
  "chainwork",
  "nTx",
  "previousblockhash",
  "nextblockhash",
] as const;

/** Core's ParseVerbosity: a bool is 0 or 1 (when allowed), a number is taken as it is. */
function verbosityOf(value: Json | undefined, fallback: number): number {
  if (value === null || value === undefined) return fallback;
  if (typeof value === "boolean") return value ? 1 : 0;
  return intArg(value, fallback);
}

/** Core's blockchain.cpp block reads over devnet's chain. */
export function blockMethods(ctx: CoreContext): Record<string, RpcMethod> {
  const { chain } = ctx;
  const find = (hash: string): ChainBlock => {
    const entry = chain.byHash.get(hash);
    if (!entry) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, "Block not found");
    return entry;
  };

  function headerJson(entry: ChainBlock): Record<string, unknown> {
    const full = blockToUniv(entry.block, {
      network: ctx.network,
      verbosity: 1,
      context: blockContext(chain, entry),
    }) as unknown as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const key of HEADER_KEYS) if (key in full) out[key] = full[key];
    return out;
  }

  return {
    getblockcount: (raw) => {
      readParams("getblockcount", raw, [], 0);
      return chain.tip.height;
    },
    getbestblockhash: (raw) => {
      readParams("getbestblockhash", raw, [], 0);
      return chain.tip.block.hash;
    },
    getdifficulty: (raw) => {
      readParams("getdifficulty", raw, [], 0);
      return new LosslessNumber(
        univalueDouble(getDifficulty(Number.parseInt(chain.tip.block.bits, 16))),
      );
    },
    getblockhash: (raw) => {
      const [height] = readParams("getblockhash", raw, [["height", "number"]], 1);
      const h = intArg(height as Json, -1);
      const entry = chain.byHeight.get(h);
      if (!entry) throw new RpcError(RPC_INVALID_PARAMETER, "Block height out of range");
      return entry.block.hash;
    },
    getblockheader: (raw) => {
      const [hash, verbose = null] = readParams(
        "getblockheader",
        raw,
        [
          ["blockhash", "string"],
          ["verbose", "bool"],
        ],
        1,
      );
      const entry = find(hashArg(hash as Json, "hash"));
      if (verbose === false) return toHex(entry.block.headerBytes);
      return headerJson(entry);
    },
    getblock: (raw) => {
      const [hash, verbosityParam = null] = readParams(
        "getblock",
        raw,
        [
          ["blockhash", "string"],
          ["verbosity|verbose", "number", "bool"],
        ],
        1,
      );
      const entry = find(hashArg(hash as Json, "blockhash"));
      const verbosity = verbosityOf(verbosityParam, 1);
      if (verbosity <= 0) return toHex(entry.block.bytes);
      const json = blockToUniv(entry.block, {
        network: ctx.network,
        verbosity: 1,
        context: blockContext(chain, entry),
      });
      if (verbosity === 1) return json;
      // Verbosity 2 and 3 (Core's SHOW_DETAILS, SHOW_DETAILS_AND_PREVOUT): each transaction as
      // TxToUniv with hex and, with undo data (devnet: every prevout known), `fee`; 3 adds
      // each input's `prevout`. A coinbase has no undo data.
      const tx: TxJson[] = entry.block.transactions.map((t) =>
        txToUniv(t, {
          network: ctx.network,
          ...(t.isCoinbase ? {} : { prevouts: ctx.prevouts, prevoutDetails: verbosity >= 3 }),
        }),
      );
      return { ...json, tx };
    },
  };
}
