import { DecodeError, parseTransaction } from "../../../bitcoin/index.ts";
import { builder, type FieldCost } from "../builder.ts";
import type { GraphQLContext } from "../context.ts";
import { codedError } from "../errors.ts";
import type { TransactionModel } from "../models.ts";
import { NetworkEnum } from "./network.ts";
import { TransactionRef } from "./transaction.ts";

export const TransactionSource = builder.enumType("TransactionSource", {
  description: "Which backend answers a transaction look-up, and so its price.",
  values: {
    FULL_NODE: { description: "Bitcoin Core (getrawtransaction's price). The default." },
    ELECTRUM: { description: "An Electrum server (blockchain.transaction.get's price)." },
  },
});

/** Priced as the chosen source's method; FULL_NODE when the argument is left out. */
const BY_SOURCE = {
  arg: "source",
  methods: { FULL_NODE: "getrawtransaction", ELECTRUM: "blockchain.transaction.get" },
};

/** The request's loader for a source (the argument `source`; FULL_NODE when left out). */
export const loaderFor = (ctx: GraphQLContext, source: string | null | undefined) =>
  source === "ELECTRUM" ? ctx.electrumTransactions : ctx.nodeTransactions;

const notFound = (txid: string) =>
  codedError("NOT_FOUND", `No such mempool or blockchain transaction: ${txid}`, { txid });

/**
 * Notes where a transaction answered at the root was mined, when the request's answer may be kept
 * whole (answers/keep.ts reads it: a kept answer is about the blocks they are in). Also called by
 * node plans (query-plans/serve.ts), which answer these root fields without their resolvers.
 */
export function noteRoot(ctx: GraphQLContext, found: TransactionModel): void {
  if (ctx.state.keep.key === undefined) return;
  ctx.state.keep.roots ??= new Map();
  ctx.state.keep.roots.set(found.tx.txid, found.block);
}

/** A transaction from the full node through the request's loader; missing is NOT_FOUND. */
export async function transactionByTxid(
  ctx: GraphQLContext,
  txid: string,
  source: string | null | undefined = "FULL_NODE",
): Promise<TransactionModel> {
  const found = await loaderFor(ctx, source).load(txid);
  if (found instanceof Error) throw found;
  if (found === null) throw notFound(txid);
  return found;
}

builder.queryFields((t) => ({
  transaction: t.field({
    type: TransactionRef,
    nullable: true,
    description:
      "A transaction by id (mempool included), from the full node or an Electrum server, priced as that source's look-up. A missing transaction is null with a NOT_FOUND error at its path.",
    args: {
      txid: t.arg({ type: "TxId", required: true }),
      source: t.arg({ type: TransactionSource, defaultValue: "FULL_NODE" }),
    },
    extensions: {
      cost: { method: "getrawtransaction", methodByArg: BY_SOURCE } satisfies FieldCost,
    },
    resolve: async (_root, { txid, source }, ctx) => {
      const found = await transactionByTxid(ctx, txid, source);
      noteRoot(ctx, found);
      return found;
    },
  }),
  transactions: t.field({
    type: [TransactionRef],
    nullable: { list: false, items: true },
    description:
      "Several transactions in one request, deduplicated: JSON-RPC batches to the node, or requests pipelined to Electrum. Each is priced as the source's look-up; missing ones are null with an error at their index.",
    args: {
      txids: t.arg({ type: ["TxId"], required: true }),
      source: t.arg({ type: TransactionSource, defaultValue: "FULL_NODE" }),
    },
    extensions: {
      cost: {
        method: "getrawtransaction",
        listArg: "txids",
        methodByArg: BY_SOURCE,
      } satisfies FieldCost,
    },
    resolve: async (_root, { txids, source }, ctx) => {
      const found = await loaderFor(ctx, source).loadMany(txids);
      for (const f of found) if (f !== null && !(f instanceof Error)) noteRoot(ctx, f);
      // graphql-js reports an Error in a list at that item's path and nulls only that item.
      return found.map((f, i) => (f === null ? notFound(txids[i]!) : f)) as TransactionModel[];
    },
  }),
  decodeTransaction: t.field({
    type: TransactionRef,
    description:
      "Decodes a raw transaction you hold, locally (as Core's decoderawtransaction). Free.",
    args: {
      hex: t.arg({ type: "Hex", required: true }),
      network: t.arg({
        type: NetworkEnum,
        description: "For addresses; the route's network by default.",
      }),
    },
    resolve: (_root, { hex, network }, ctx) => {
      try {
        const tx = parseTransaction(Buffer.from(hex, "hex"));
        return {
          tx,
          network: network ?? ctx.network,
          origin: "DECODED" as const,
          block: null,
          prevouts: null,
        };
      } catch (err) {
        if (err instanceof DecodeError) throw codedError("INVALID_PARAMS", "TX decode failed");
        throw err;
      }
    },
  }),
}));
