import { builder, type FieldCost, type FieldFanOut } from "../builder.ts";
import type { GraphQLContext } from "../context.ts";
import { codedError } from "../errors.ts";
import { ask } from "../upstream-calls.ts";
import { type AddressModel, AddressRef, int, listOf, sats } from "./address.ts";
import {
  type CursorKind,
  chainOrder,
  decodeCursor,
  type Page,
  pageAfter,
  pageAtOffset,
  startCursor,
} from "./address-cursor.ts";
import { Amount } from "./amount.ts";
import { TransactionRef } from "./transaction.ts";
import { transactionByTxid } from "./transaction-queries.ts";

/** An entry of a page, with the cursor after it (computed when asked). */
type Paged<E> = E & { cursor: () => string };

interface HistoryEntry {
  txid: string;
  /** As the server gives it: 0 in the mempool, -1 there with an unconfirmed parent. */
  rawHeight: number;
  fee: bigint | null;
  /** The pager's view: null in the mempool. */
  height: number | null;
  key: string;
}

interface Utxo {
  txid: string;
  vout: number;
  rawHeight: number;
  value: bigint;
  height: number | null;
  key: string;
}

const HISTORY_PAGE = 50;

const HistoryEntryRef = builder.objectRef<Paged<HistoryEntry>>("AddressHistoryEntry").implement({
  description: "A transaction paying to or spending from the address.",
  fields: (t) => ({
    txid: t.field({ type: "TxId", resolve: (e) => e.txid }),
    height: t.int({
      description:
        "The block height; 0 in the mempool, -1 in the mempool with an unconfirmed parent.",
      resolve: (e) => e.rawHeight,
    }),
    fee: t.field({
      type: Amount,
      nullable: true,
      description: "Mempool entries only, as the server reports it.",
      resolve: (e) => e.fee,
    }),
    cursor: t.string({
      description: "Where a page after this entry starts (`history(after:)`); opaque.",
      resolve: (e) => e.cursor(),
    }),
    transaction: t.field({
      type: TransactionRef,
      description: "The transaction itself, priced as a getrawtransaction.",
      extensions: { cost: { method: "getrawtransaction" } satisfies FieldCost },
      resolve: (e, _args, ctx) => transactionByTxid(ctx, e.txid),
    }),
  }),
});

const HistoryPageRef = builder
  .objectRef<{ page: Page<Paged<HistoryEntry>>; total: number }>("AddressHistory")
  .implement({
    description:
      "A page of the address's history: confirmed by height, in block order; the mempool last, by txid.",
    fields: (t) => ({
      total: t.int({ description: "Entries in the whole history.", resolve: (p) => p.total }),
      entries: t.field({ type: [HistoryEntryRef], resolve: (p) => p.page.entries }),
      endCursor: t.string({
        nullable: true,
        description:
          "Give it as `after` for the next page. Stable across new blocks and reorganisations (docs/users/gateway.md); an empty page gives back the `after` it was given, to ask again later.",
        resolve: (p) => p.page.endCursor,
      }),
      hasNextPage: t.boolean({
        description: "Whether entries not yet served remained when this page was read.",
        resolve: (p) => p.page.hasNextPage,
      }),
    }),
  });

const UtxoRef = builder.objectRef<Paged<Utxo>>("AddressUtxo").implement({
  description: "An unspent output of the address (blockchain.scripthash.listunspent).",
  fields: (t) => ({
    txid: t.field({ type: "TxId", resolve: (u) => u.txid }),
    vout: t.int({ resolve: (u) => u.vout }),
    height: t.int({ description: "0 when unconfirmed.", resolve: (u) => u.rawHeight }),
    value: t.field({ type: Amount, resolve: (u) => u.value }),
    cursor: t.string({
      description: "Where a page after this output starts (`utxos(after:)`); opaque.",
      resolve: (u) => u.cursor(),
    }),
  }),
});

const pageArgs = (t: Parameters<Parameters<typeof builder.objectFields>[1]>[0]) => ({
  first: t.arg.int({ description: "Entries in the page, at most graphql.listItemsMax." }),
  after: t.arg.string({ description: "The cursor of the entry the page starts after." }),
});

builder.objectFields(AddressRef, (t) => ({
  history: t.field({
    type: HistoryPageRef,
    description: `A page of the history (${HISTORY_PAGE} entries by default) after a cursor; the whole history is one call, priced once, and each entry's transaction, when selected, as a getrawtransaction.`,
    args: {
      ...pageArgs(t),
      limit: t.arg.int({ deprecationReason: "Use first (and after)." }),
      offset: t.arg.int({
        deprecationReason: "Offsets shift when blocks are mined: use after, a stable cursor.",
      }),
    },
    extensions: {
      cost: { method: "blockchain.scripthash.get_history" } satisfies FieldCost,
      fanOut: { countArgs: ["first", "limit"], default: HISTORY_PAGE } satisfies FieldFanOut,
    },
    resolve: async (a, args, ctx) => {
      const size = pageSize(ctx, args.first ?? args.limit, HISTORY_PAGE, "first");
      if (args.first != null && args.limit != null) refuse("give first or limit, not both");
      if (args.after != null && args.offset != null) refuse("give after or offset, not both");
      if ((args.offset ?? 0) < 0) refuse("offset must be ≥ 0");
      const all = chainOrder((await historyOf(ctx, a)).map(historyEntry));
      const page =
        args.offset != null
          ? pageAtOffset("history", all, args.offset, size)
          : pageAfter(all, cursorArg("history", args.after), size, args.after ?? null);
      return { page: withCursors(page), total: all.length };
    },
  }),
  utxos: t.field({
    type: [UtxoRef],
    description:
      "The unspent outputs: all of them, or with `first` a page after a cursor — confirmed by height, txid and vout, then the unconfirmed. One call, priced once, whatever the page.",
    args: pageArgs(t),
    extensions: { cost: { method: "blockchain.scripthash.listunspent" } satisfies FieldCost },
    resolve: async (a, { first, after }, ctx) => {
      const answer = await ask(ctx.electrumCalls, {
        method: "blockchain.scripthash.listunspent",
        params: [a.scripthash],
      });
      const all = chainOrder(listOf(answer, "unspent list").map(utxoEntry));
      const size = first == null ? all.length : pageSize(ctx, first, all.length, "first");
      return withCursors(pageAfter(all, cursorArg("utxos", after), size, after ?? null)).entries;
    },
  }),
}));

function refuse(message: string): never {
  throw codedError("INVALID_PARAMS", message);
}

function pageSize(
  ctx: GraphQLContext,
  asked: number | null | undefined,
  byDefault: number,
  name: string,
) {
  const max = ctx.services.config.graphql.listItemsMax;
  const size = asked ?? byDefault;
  if (size < 0 || size > max) refuse(`${name} must be 0 – ${max}`);
  return size;
}

function cursorArg(kind: CursorKind, after: string | null | undefined) {
  if (after == null) return startCursor(kind);
  const cursor = decodeCursor(after, kind);
  if (!cursor) refuse(`after: not a cursor of Address.${kind}`);
  return cursor;
}

function withCursors<E>(page: Page<E & { height: number | null; key: string }>) {
  const entries = page.entries.map((e, i) => ({ ...e, cursor: () => page.cursorAfter(i) }));
  return { ...page, entries };
}

async function historyOf(ctx: GraphQLContext, a: AddressModel) {
  const answer = await ask(ctx.electrumCalls, {
    method: "blockchain.scripthash.get_history",
    params: [a.scripthash],
  });
  return listOf(answer, "history");
}

function historyEntry(e: ReturnType<typeof listOf>[number]): HistoryEntry {
  const txid = String(e.tx_hash);
  const rawHeight = int(e.height);
  const fee = e.fee === undefined ? null : sats(e.fee);
  return { txid, rawHeight, fee, height: rawHeight > 0 ? rawHeight : null, key: txid };
}

function utxoEntry(u: ReturnType<typeof listOf>[number]): Utxo {
  const txid = String(u.tx_hash);
  const vout = int(u.tx_pos);
  const rawHeight = int(u.height);
  const key = `${txid}:${String(vout).padStart(10, "0")}`;
  return {
    txid,
    vout,
    rawHeight,
    value: sats(u.value),
    height: rawHeight > 0 ? rawHeight : null,
    key,
  };
}
