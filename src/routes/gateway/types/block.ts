import { defaultMergedResolver, type ExternalObject } from "@graphql-tools/delegate";
import type { GraphQLResolveInfo } from "graphql";
import { builder, type FieldCost, type IndexerSite } from "../builder.ts";
import type { GraphQLContext } from "../context.ts";
import { sitePath } from "../cost/site-path.ts";
import { atThisField, codedError } from "../errors.ts";
import { delegateToIndexer, joinKey } from "../indexer.ts";
import { blockLoader } from "../loaders.ts";
import { indexerArgs } from "./indexer-inputs.ts";
import { TransactionRef } from "./transaction.ts";
import { transactionByTxid } from "./transaction-queries.ts";

/**
 * Blocks from the indexer (graph backend), delegated with @graphql-tools: `Block` and
 * `BlockTransaction` mirror the indexer's `block` and `block_transaction` tables — columns under
 * Hasura's names, the filter and ordering inputs under Hasura's type names too — and every field
 * the indexer owns is resolved from what the indexer answered to the delegated query. The gateway
 * adds two joins: a block's transaction to the full `Transaction` (full node), and a transaction
 * to its `Block` (indexer).
 */

/** A column of a delegated row: read by response key (aliases), the indexer's errors at their path. */
function column<T>() {
  return (row: ExternalObject, args: object, ctx: GraphQLContext, info: GraphQLResolveInfo): T =>
    defaultMergedResolver(row, args, ctx, info) as T;
}

export const BlockRef = builder.objectRef<ExternalObject>("Block");
export const BlockTransactionRef = builder.objectRef<ExternalObject>("BlockTransaction");

BlockRef.implement({
  description:
    "A block as the indexer keeps it (the graph backend's `block` table; columns under its names).",
  fields: (t) => ({
    hash: t.field({ type: "BlockHash", resolve: column<string>() }),
    height: t.int({ resolve: column<number>() }),
    timestamp: t.int({
      description: "Unix seconds (the header's time).",
      resolve: column<number>(),
    }),
    transaction_count: t.int({ resolve: column<number>() }),
    size_bytes: t.int({ resolve: column<number>() }),
    transactions: t.field({
      type: [BlockTransactionRef],
      description:
        "The block's transactions, in block order unless ordered. Arguments as the indexer takes them.",
      args: indexerArgs(t.arg, "block.transactions"),
      resolve: column<ExternalObject[]>(),
    }),
  }),
});

BlockTransactionRef.implement({
  description: "A transaction as the indexer lists it in its block (`block_transaction`).",
  fields: (t) => ({
    hash: t.field({ type: "TxId", description: "The txid.", resolve: column<string>() }),
    size_bytes: t.int({ resolve: column<number>() }),
    input_count: t.int({ resolve: column<number>() }),
    output_count: t.int({ resolve: column<number>() }),
    transaction: t.field({
      type: TransactionRef,
      nullable: true,
      description:
        "The full transaction, from the full node: looked up in JSON-RPC batches with every other transaction of the request, each priced as getrawtransaction (times the sizes of the lists around it).",
      extensions: { cost: { method: "getrawtransaction" } satisfies FieldCost },
      resolve: (row, _args, ctx, info) => {
        // The estimate priced this join for as many rows as the lists around it may hold; a list
        // that holds more (no limit, and more rows than graph.listSizeDefault) is cut off here.
        const site = sitePath(info.path);
        const left = ctx.state.asks.joinBudget.get(site) ?? 0;
        if (left <= 0) {
          throw codedError(
            "LIMIT_EXCEEDED",
            `${site}: more rows than this join was priced for; give the lists around it a limit`,
          );
        }
        ctx.state.asks.joinBudget.set(site, left - 1);
        return transactionByTxid(ctx, row[joinKey("hash")] as string);
      },
    }),
  }),
});

builder.objectField(TransactionRef, "block", (t) =>
  t.field({
    type: BlockRef,
    nullable: true,
    description:
      "The block that mined it, from the indexer (block_by_pk): deduplicated and batched per request, priced as an indexer query for each distinct block. Null in the mempool and for decoded transactions.",
    extensions: { indexer: { rootField: "block_by_pk" } satisfies IndexerSite },
    resolve: async (tx, _args, ctx, info) => {
      if (!tx.block) return null;
      const site = sitePath(info.path);
      let loader = ctx.blocksBySite.get(site);
      if (!loader) {
        loader = blockLoader(ctx, info);
        ctx.blocksBySite.set(site, loader);
      }
      try {
        return (await loader.load(tx.block.hash)) as ExternalObject | null;
      } catch (err) {
        throw atThisField(err);
      }
    },
  }),
);

builder.queryFields((t) => ({
  block: t.field({
    type: [BlockRef],
    nullable: true,
    description:
      "Blocks from the indexer, delegated to its `block` field with `where`, `limit`, `offset` and `order_by` as given (Hasura's semantics). Priced as a graph query: base + complexity. Null, with an error, when the indexer fails.",
    args: indexerArgs(t.arg, "query_root.block"),
    extensions: { indexer: { rootField: "block" } satisfies IndexerSite },
    resolve: async (_root, args, ctx, info) =>
      (await delegateToIndexer(ctx, info, "block", args)) as ExternalObject[] | null,
  }),
  block_by_pk: t.field({
    type: BlockRef,
    nullable: true,
    description:
      "A block by hash from the indexer (its `block_by_pk`); null when there is none. Priced as a graph query.",
    args: indexerArgs(t.arg, "query_root.block_by_pk"),
    extensions: { indexer: { rootField: "block_by_pk" } satisfies IndexerSite },
    resolve: async (_root, args, ctx, info) =>
      (await delegateToIndexer(ctx, info, "block_by_pk", args)) as ExternalObject | null,
  }),
}));
