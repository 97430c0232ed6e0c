import { addressToScript, type Network, toHex } from "../../../bitcoin/index.ts";
import { electrumScripthash } from "../../../bitcoin/scripthash.ts";
import { isJsonNumber, isJsonObject, type Json } from "../../../protocol/json/json.ts";
import { builder, type FieldCost } from "../builder.ts";
import { codedError } from "../errors.ts";
import { ask } from "../upstream-calls.ts";
import { Amount } from "./amount.ts";
import { TransactionRef } from "./transaction.ts";
import { transactionByTxid } from "./transaction-queries.ts";

export interface AddressModel {
  address: string;
  script: Uint8Array;
  scripthash: string;
}

const sats = (v: Json | undefined): bigint => (isJsonNumber(v) ? BigInt(v.value) : 0n);
const int = (v: Json | undefined): number => (isJsonNumber(v) ? Number(v.value) : 0);

function listOf(answer: Json, what: string): { [key: string]: Json }[] {
  if (!Array.isArray(answer) || !answer.every((e) => isJsonObject(e))) {
    throw codedError("UPSTREAM_BAD_RESPONSE", `the Electrum server's ${what} is not a list`);
  }
  return answer as { [key: string]: Json }[];
}

export const BalanceRef = builder
  .objectRef<{ confirmed: bigint; unconfirmed: bigint }>("AddressBalance")
  .implement({
    description: "What the address holds (blockchain.scripthash.get_balance).",
    fields: (t) => ({
      confirmed: t.field({ type: Amount, resolve: (b) => b.confirmed }),
      unconfirmed: t.field({
        type: Amount,
        description: "The mempool's change to it; negative when the mempool spends from it.",
        resolve: (b) => b.unconfirmed,
      }),
    }),
  });

const HistoryEntryRef = builder
  .objectRef<{ txid: string; height: number; fee: bigint | null }>("AddressHistoryEntry")
  .implement({
    description: "A transaction paying to or spending from the address.",
    fields: (t) => ({
      txid: t.field({ type: "TxId", resolve: (e) => e.txid }),
      height: t.int({
        description:
          "The block height; 0 in the mempool, -1 in the mempool with an unconfirmed parent.",
        resolve: (e) => e.height,
      }),
      fee: t.field({
        type: Amount,
        nullable: true,
        description: "Mempool entries only, as the server reports it.",
        resolve: (e) => e.fee,
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
  .objectRef<{ entries: { txid: string; height: number; fee: bigint | null }[]; total: number }>(
    "AddressHistory",
  )
  .implement({
    description: "A page of the address's history, oldest first, mempool last.",
    fields: (t) => ({
      total: t.int({ description: "Entries in the whole history.", resolve: (p) => p.total }),
      entries: t.field({ type: [HistoryEntryRef], resolve: (p) => p.entries }),
    }),
  });

const UtxoRef = builder
  .objectRef<{ txid: string; vout: number; height: number; value: bigint }>("AddressUtxo")
  .implement({
    description: "An unspent output of the address (blockchain.scripthash.listunspent).",
    fields: (t) => ({
      txid: t.field({ type: "TxId", resolve: (u) => u.txid }),
      vout: t.int({ resolve: (u) => u.vout }),
      height: t.int({ description: "0 when unconfirmed.", resolve: (u) => u.height }),
      value: t.field({ type: Amount, resolve: (u) => u.value }),
    }),
  });

const HISTORY_PAGE = 50;

export const AddressRef = builder.objectRef<AddressModel>("Address").implement({
  description:
    "An address of the route's network, looked up through its Electrum servers by the script it stands for.",
  fields: (t) => ({
    address: t.string({ resolve: (a) => a.address }),
    scriptPubKey: t.field({ type: "Hex", resolve: (a) => toHex(a.script) }),
    scripthash: t.field({
      type: "Hex",
      description: "The Electrum protocol's script hash (sha256 of the script, reversed).",
      resolve: (a) => a.scripthash,
    }),
    balance: t.field({
      type: BalanceRef,
      extensions: { cost: { method: "blockchain.scripthash.get_balance" } satisfies FieldCost },
      resolve: async (a, _args, ctx) => {
        const answer = await ask(ctx.electrumCalls, {
          method: "blockchain.scripthash.get_balance",
          params: [a.scripthash],
        });
        if (!isJsonObject(answer))
          throw codedError("UPSTREAM_BAD_RESPONSE", "the balance is not an object");
        return { confirmed: sats(answer.confirmed), unconfirmed: sats(answer.unconfirmed) };
      },
    }),
    history: t.field({
      type: HistoryPageRef,
      description: `A page of the history (${HISTORY_PAGE} entries by default); the whole history is one call, priced once.`,
      args: {
        limit: t.arg.int({ defaultValue: HISTORY_PAGE }),
        offset: t.arg.int({ defaultValue: 0 }),
      },
      extensions: { cost: { method: "blockchain.scripthash.get_history" } satisfies FieldCost },
      resolve: async (a, { limit, offset }, ctx) => {
        if (
          (limit ?? 0) < 0 ||
          (offset ?? 0) < 0 ||
          (limit ?? 0) > ctx.services.config.graphql.listItemsMax
        ) {
          throw codedError(
            "INVALID_PARAMS",
            `limit must be 0 – ${ctx.services.config.graphql.listItemsMax} and offset ≥ 0`,
          );
        }
        const all = listOf(
          await ask(ctx.electrumCalls, {
            method: "blockchain.scripthash.get_history",
            params: [a.scripthash],
          }),
          "history",
        );
        const from = offset ?? 0;
        return {
          total: all.length,
          entries: all.slice(from, from + (limit ?? HISTORY_PAGE)).map((e) => ({
            txid: String(e.tx_hash),
            height: int(e.height),
            fee: e.fee === undefined ? null : sats(e.fee),
          })),
        };
      },
    }),
    utxos: t.field({
      type: [UtxoRef],
      extensions: { cost: { method: "blockchain.scripthash.listunspent" } satisfies FieldCost },
      resolve: async (a, _args, ctx) =>
        listOf(
          await ask(ctx.electrumCalls, {
            method: "blockchain.scripthash.listunspent",
            params: [a.scripthash],
          }),
          "unspent list",
        ).map((u) => ({
          txid: String(u.tx_hash),
          vout: int(u.tx_pos),
          height: int(u.height),
          value: sats(u.value),
        })),
    }),
  }),
});

builder.queryFields((t) => ({
  address: t.field({
    type: AddressRef,
    description:
      "An address of the route's network: its balance, history (paginated) and unspent outputs, each priced as its Electrum call. Free by itself; an address of another network is INVALID_PARAMS.",
    args: { address: t.arg.string({ required: true }) },
    resolve: (_root, { address }, ctx) => {
      const script = addressToScript(address, ctx.network as Network);
      if (!script) {
        throw codedError("INVALID_PARAMS", `not an address of ${ctx.network}: ${address}`);
      }
      return { address, script, scripthash: electrumScripthash(script) };
    },
  }),
}));
