import { DecodeError, parseTransaction } from "../../bitcoin/index.ts";
import { builder, type FieldCost } from "../builder.ts";
import type { GraphQLContext } from "../context.ts";
import { codedError } from "../errors.ts";
import type { TransactionModel } from "../models.ts";
import { NetworkEnum } from "./network.ts";
import { TransactionRef } from "./transaction.ts";

const notFound = (txid: string) =>
  codedError("NOT_FOUND", `No such mempool or blockchain transaction: ${txid}`, { txid });

/** A transaction from the full node through the request's loader; missing is NOT_FOUND. */
export async function transactionByTxid(
  ctx: GraphQLContext,
  txid: string,
): Promise<TransactionModel> {
  const found = await ctx.nodeTransactions.load(txid);
  if (found instanceof Error) throw found;
  if (found === null) throw notFound(txid);
  return found;
}

builder.queryFields((t) => ({
  transaction: t.field({
    type: TransactionRef,
    nullable: true,
    description:
      "A transaction by id, from the full node (mempool and transaction index). Priced as getrawtransaction. A missing transaction is null with a NOT_FOUND error at its path.",
    args: { txid: t.arg({ type: "TxId", required: true }) },
    extensions: { cost: { method: "getrawtransaction" } satisfies FieldCost },
    resolve: (_root, { txid }, ctx) => transactionByTxid(ctx, txid),
  }),
  transactions: t.field({
    type: [TransactionRef],
    nullable: { list: false, items: true },
    description:
      "Several transactions in one request, batched to the node and deduplicated. Each is priced as getrawtransaction; missing ones are null with an error at their index.",
    args: { txids: t.arg({ type: ["TxId"], required: true }) },
    extensions: { cost: { method: "getrawtransaction", listArg: "txids" } satisfies FieldCost },
    resolve: async (_root, { txids }, ctx) => {
      const found = await ctx.nodeTransactions.loadMany(txids);
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
        if (err instanceof DecodeError) throw codedError("BAD_USER_INPUT", "TX decode failed");
        throw err;
      }
    },
  }),
}));
