import { LosslessNumber } from "lossless-json";
import type { Prevout, Transaction } from "../../bitcoin/index.ts";
import {
  checkHash,
  RPC_INVALID_ADDRESS_OR_KEY,
  RPC_INVALID_PARAMETER,
  RPC_MISC_ERROR,
} from "../../protocol/core/params.ts";
import type { Json } from "../../protocol/json/json.ts";
import { blockStats, UNDO_STATS } from "../block-stats.ts";
import type { ChainBlock } from "../chain.ts";
import { medianTimePast } from "../chain-facts.ts";
import { inActiveChain } from "./block-context.ts";
import type { CoreContext } from "./context.ts";
import type { RpcMethod } from "./http.ts";
import { intArg, readParams } from "./params.ts";
import { RpcError } from "./rpc-error.ts";

/** bigint statistics as JSON integers (UniValue's int64). */
function toJson(value: unknown): unknown {
  if (typeof value === "bigint") return new LosslessNumber(value.toString());
  if (Array.isArray(value)) return value.map(toJson);
  return value;
}

/** Core's ParseHashOrHeight: a height on the active chain, or a block hash in it. */
function findBlock(ctx: CoreContext, param: Json): ChainBlock {
  const { chain } = ctx;
  if (typeof param === "string") {
    const error = checkHash(param, "hash_or_height");
    if (error) throw new RpcError(error.code, error.message);
    const entry = chain.byHash.get(param.toLowerCase());
    if (!entry) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, "Block not found");
    if (!inActiveChain(chain, entry)) {
      throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, "Block is not in chain");
    }
    return entry;
  }
  const height = intArg(param, 0);
  if (height < 0) {
    throw new RpcError(RPC_INVALID_PARAMETER, `Target block height ${height} is negative`);
  }
  if (height > chain.tip.height) {
    throw new RpcError(
      RPC_INVALID_PARAMETER,
      `Target block height ${height} after current tip ${chain.tip.height}`,
    );
  }
  const entry = chain.byHeight.get(height);
  // A height devnet's sparse chain lacks (Core always has it).
  if (!entry) throw new RpcError(RPC_INVALID_PARAMETER, "Block height out of range");
  return entry;
}

/**
 * Core's getblockstats. Core always reads the block's undo data; devnet has it only where it
 * knows every prevout, so it answers -1 "Can't read undo data from disk" (Core's words for
 * unreadable undo) only when a requested statistic needs it, and serves the others.
 */
export function blockStatsMethod(ctx: CoreContext): Record<string, RpcMethod> {
  return {
    getblockstats: (raw) => {
      const [target, statsParam = null] = readParams(
        "getblockstats",
        raw,
        [
          ["hash_or_height", "number", "string"],
          ["stats", "array"],
        ],
        1,
      );
      const entry = findBlock(ctx, target as Json);
      const wanted = [...new Set((statsParam as Json[] | null)?.map(String) ?? [])].sort();
      const all = wanted.length === 0;
      const needsUndo = all || wanted.some((s) => UNDO_STATS.has(s));
      let spent: ((tx: Transaction) => Prevout[]) | undefined;
      if (needsUndo) {
        const lists = new Map<string, Prevout[]>();
        for (const tx of entry.block.transactions) {
          if (tx.isCoinbase) continue;
          const list = tx.inputs.map((i) => ctx.prevouts(i.prevTxid, i.vout));
          if (list.some((p) => p === undefined)) {
            throw new RpcError(RPC_MISC_ERROR, "Can't read undo data from disk");
          }
          lists.set(tx.txid, list as Prevout[]);
        }
        spent = (tx) => lists.get(tx.txid)!;
      }
      const stats = blockStats(
        entry.block,
        entry.height,
        medianTimePast(ctx.chain, entry),
        ctx.network,
        spent,
      );
      const pick = all ? Object.keys(stats) : wanted;
      const out: Record<string, unknown> = {};
      for (const key of pick) {
        if (!(key in stats)) {
          throw new RpcError(RPC_INVALID_PARAMETER, `Invalid selected statistic '${key}'`);
        }
        out[key] = toJson(stats[key]);
      }
      return out;
    },
  };
}
