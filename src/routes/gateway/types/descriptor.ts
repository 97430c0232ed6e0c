import type { Network } from "../../../bitcoin/index.ts";
import { DescriptorRefusal, parseDescriptor } from "../../../bitcoin/output-descriptor.ts";
import { isJsonNumber, isJsonObject, type Json } from "../../../protocol/json/json.ts";
import { builder, type FieldCost } from "../builder.ts";
import type { GraphQLContext } from "../context.ts";
import {
  type DescriptorScanResult,
  type ScannedHistoryEntry,
  scanDescriptor,
  type UsedAddress,
} from "../descriptor-scan.ts";
import { codedError } from "../errors.ts";
import { ask } from "../upstream-calls.ts";
import { AddressRef, BalanceRef } from "./address.ts";
import { Amount } from "./amount.ts";

const sats = (v: Json | undefined): bigint => (isJsonNumber(v) ? BigInt(v.value) : 0n);

const DescriptorAddressRef = builder.objectRef<UsedAddress>("DescriptorAddress").implement({
  description: "A used address of a descriptor: where it was derived, and the address itself.",
  fields: (t) => ({
    branch: t.int({
      nullable: true,
      description:
        "The value of the multipath step (`<0;1>`: 0 receive, 1 change); null without one.",
      resolve: (a) => a.branch,
    }),
    index: t.int({
      nullable: true,
      description: "The index in place of `*`; null for a descriptor without one.",
      resolve: (a) => a.index,
    }),
    transactions: t.int({
      description: "Entries in its history (the scan read them).",
      resolve: (a) => a.history.length,
    }),
    address: t.field({
      type: AddressRef,
      description:
        "The address: its balance, history and unspent outputs, each priced as its call.",
      resolve: (a) => ({ address: a.address, script: a.scriptPubKey, scripthash: a.scripthash }),
    }),
  }),
});

const DescriptorHistoryEntryRef = builder
  .objectRef<ScannedHistoryEntry & { address: string }>("DescriptorHistoryEntry")
  .implement({
    description: "A transaction paying to or spending from one of the descriptor's used addresses.",
    fields: (t) => ({
      txid: t.field({ type: "TxId", resolve: (e) => e.txid }),
      height: t.int({
        description:
          "The block height; 0 in the mempool, -1 in the mempool with an unconfirmed parent.",
        resolve: (e) => e.height,
      }),
      fee: t.field({ type: Amount, nullable: true, resolve: (e) => e.fee }),
      address: t.string({
        description: "The first used address (receive before change, by index) it touches.",
        resolve: (e) => e.address,
      }),
    }),
  });

const DescriptorUtxoRef = builder
  .objectRef<{ address: string; txid: string; vout: number; height: number; value: bigint }>(
    "DescriptorUtxo",
  )
  .implement({
    description: "An unspent output of one of the descriptor's used addresses.",
    fields: (t) => ({
      address: t.string({ resolve: (u) => u.address }),
      txid: t.field({ type: "TxId", resolve: (u) => u.txid }),
      vout: t.int({ resolve: (u) => u.vout }),
      height: t.int({ description: "0 when unconfirmed.", resolve: (u) => u.height }),
      value: t.field({ type: Amount, resolve: (u) => u.value }),
    }),
  });

/** Each used address's call, asked together; a failed one fails the field. */
function perUsed(ctx: GraphQLContext, scan: DescriptorScanResult, method: string) {
  return Promise.all(
    scan.used.map(async (a) => ({
      a,
      answer: await ask(ctx.electrumCalls, { method, params: [a.scripthash] }),
    })),
  );
}

const DescriptorScanRef = builder.objectRef<DescriptorScanResult>("DescriptorScan").implement({
  description:
    "What a descriptor's addresses hold: scanned branch by branch until gapLimit unused addresses in a row.",
  fields: (t) => ({
    addressesScanned: t.int({
      description: "Addresses derived and looked up: what the scan is charged for.",
      resolve: (s) => s.scanned,
    }),
    rounds: t.int({
      description:
        "Rounds of look-ups, each of at most gapLimit addresses a branch, sent together.",
      resolve: (s) => s.rounds,
    }),
    usedAddresses: t.field({
      type: [DescriptorAddressRef],
      description: "The addresses with a history, by branch and index.",
      resolve: (s) => s.used,
    }),
    history: t.field({
      type: [DescriptorHistoryEntryRef],
      description:
        "The used addresses' transactions, each once, confirmed by height then the mempool (read by the scan: no extra charge).",
      resolve: (s) => mergedHistory(s.used),
    }),
    balance: t.field({
      type: BalanceRef,
      description:
        "The sum of the used addresses' balances: one blockchain.scripthash.get_balance each, priced as such.",
      extensions: { cost: { method: "blockchain.scripthash.get_balance" } satisfies FieldCost },
      resolve: async (s, _args, ctx) => {
        let confirmed = 0n;
        let unconfirmed = 0n;
        for (const { answer } of await perUsed(ctx, s, "blockchain.scripthash.get_balance")) {
          if (!isJsonObject(answer))
            throw codedError("UPSTREAM_BAD_RESPONSE", "the balance is not an object");
          confirmed += sats(answer.confirmed);
          unconfirmed += sats(answer.unconfirmed);
        }
        return { confirmed, unconfirmed };
      },
    }),
    utxos: t.field({
      type: [DescriptorUtxoRef],
      description:
        "The used addresses' unspent outputs: one blockchain.scripthash.listunspent each, priced as such.",
      extensions: { cost: { method: "blockchain.scripthash.listunspent" } satisfies FieldCost },
      resolve: async (s, _args, ctx) =>
        (await perUsed(ctx, s, "blockchain.scripthash.listunspent")).flatMap(({ a, answer }) => {
          if (!Array.isArray(answer) || !answer.every((u) => isJsonObject(u)))
            throw codedError("UPSTREAM_BAD_RESPONSE", "the unspent list is not a list");
          return (answer as { [key: string]: Json }[]).map((u) => ({
            address: a.address,
            txid: String(u.tx_hash),
            vout: isJsonNumber(u.tx_pos) ? Number(u.tx_pos.value) : 0,
            height: isJsonNumber(u.height) ? Number(u.height.value) : 0,
            value: sats(u.value),
          }));
        }),
    }),
  }),
});

/** Histories merged: each txid once, confirmed ones by height, then the mempool's. */
function mergedHistory(used: UsedAddress[]): (ScannedHistoryEntry & { address: string })[] {
  const byTxid = new Map<string, ScannedHistoryEntry & { address: string }>();
  for (const a of used) {
    for (const e of a.history)
      if (!byTxid.has(e.txid)) byTxid.set(e.txid, { ...e, address: a.address });
  }
  const rank = (h: number) => (h > 0 ? h : Number.MAX_SAFE_INTEGER - h);
  return [...byTxid.values()].sort((x, y) => rank(x.height) - rank(y.height));
}

builder.queryFields((t) => ({
  descriptor: t.field({
    type: DescriptorScanRef,
    description:
      "Scans an output descriptor (wpkh, sh(wpkh), tr, wsh/sh multi and sortedmulti; xpub/tpub with `/0/*`, `/1/*` or `<0;1>/*`) for its used addresses, through the network's Electrum servers. Each address scanned is priced as a blockchain.scripthash.get_history; graphql.descriptorAddressesMax of them are reserved and a scan needing more is refused. Private keys, bad checksums and keys of another network are INVALID_PARAMS, not charged.",
    args: {
      descriptor: t.arg.string({ required: true }),
      gapLimit: t.arg.int({ defaultValue: 20 }),
    },
    extensions: {
      cost: {
        method: "blockchain.scripthash.get_history",
        scan: { gapArg: "gapLimit", descriptorArg: "descriptor" },
      } satisfies FieldCost,
    },
    resolve: async (_root, { descriptor, gapLimit }, ctx) => {
      let parsed: ReturnType<typeof parseDescriptor>;
      try {
        parsed = parseDescriptor(descriptor, ctx.network as Network);
      } catch (err) {
        if (err instanceof DescriptorRefusal) throw codedError("INVALID_PARAMS", err.message);
        throw err;
      }
      const max = ctx.services.config.graphql.descriptorAddressesMax;
      return scanDescriptor(ctx.electrumCalls, parsed, gapLimit ?? 20, max);
    },
  }),
}));
