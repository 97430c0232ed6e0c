import { builder } from "../builder.ts";
import type { TransactionModel, TxVerification } from "../models.ts";
import { Amount } from "./amount.ts";
import { TxIn, TxOut } from "./tx-io.ts";
import { VerificationRef } from "./verification.ts";

/** Bytes the caller gave (decodeTransaction): nothing of them was checked. */
const UNCHECKED: TxVerification = { status: "unchecked", proof: null };

export const TransactionStatus = builder.enumType("TransactionStatus", {
  values: {
    MEMPOOL: { description: "Unconfirmed: in the node's mempool." },
    CONFIRMED: { description: "Mined in a block of the active chain." },
    UNKNOWN: { description: "Decoded from bytes the caller holds: no chain position is known." },
  },
});

/**
 * The fields of Transaction whose resolvers below read the model alone (no arguments, context or
 * info) and answer at once: a node plan (query-plans/node-plan.ts) calls them itself, and those of
 * the types they lead to (PLAIN_FIELDS in tx-io.ts, amount.ts, script.ts). A field added here
 * must keep that, or stay out of the list.
 */
export const TRANSACTION_PLAIN_FIELDS: ReadonlySet<string> = new Set([
  "txid",
  "hash",
  "version",
  "size",
  "vsize",
  "weight",
  "locktime",
  "inputs",
  "outputs",
  "fee",
  "status",
  "confirmations",
  "blockhash",
  "blocktime",
  "time",
  "hex",
]);

export const TransactionRef = builder.objectRef<TransactionModel>("Transaction").implement({
  description: "A Bitcoin transaction, decoded by blockgate's Core-compatible codec.",
  fields: (t) => ({
    txid: t.field({ type: "TxId", resolve: (m) => m.tx.txid }),
    hash: t.field({
      type: "TxId",
      description: "The witness txid (wtxid); equals txid without witness.",
      resolve: (m) => m.tx.wtxid,
    }),
    version: t.field({
      type: "UInt32",
      description: "nVersion, unsigned as Core prints it.",
      resolve: (m) => m.tx.version >>> 0,
    }),
    size: t.int({ resolve: (m) => m.tx.size }),
    vsize: t.int({ resolve: (m) => m.tx.vsize }),
    weight: t.int({ resolve: (m) => m.tx.weight }),
    locktime: t.field({ type: "UInt32", description: "nLockTime.", resolve: (m) => m.tx.locktime }),
    inputs: t.field({
      type: [TxIn],
      resolve: (m) =>
        m.tx.inputs.map((input, index) => ({
          input,
          index,
          coinbase: m.tx.isCoinbase,
          network: m.network,
          prevout: m.prevouts?.[index],
        })),
    }),
    outputs: t.field({
      type: [TxOut],
      resolve: (m) =>
        m.tx.outputs.map((output, n) => ({ output, n, network: m.network, scripts: m.scripts })),
    }),
    fee: t.field({
      type: Amount,
      nullable: true,
      description:
        "Inputs minus outputs, when every spent output is known; null for coinbases and mempool transactions.",
      resolve: (m) => {
        if (m.tx.isCoinbase || !m.prevouts || m.prevouts.some((p) => p === undefined)) return null;
        const spent = m.prevouts.reduce((sum, p) => sum + p!.valueSats, 0n);
        return spent - m.tx.outputs.reduce((sum, o) => sum + o.value, 0n);
      },
    }),
    status: t.field({
      type: TransactionStatus,
      resolve: (m) => (m.origin === "DECODED" ? "UNKNOWN" : m.block ? "CONFIRMED" : "MEMPOOL"),
    }),
    confirmations: t.int({ nullable: true, resolve: (m) => m.block?.confirmations ?? null }),
    verification: t.field({
      type: VerificationRef,
      description:
        "How far blockgate checked this transaction against the chain (X-Blockgate-Verified per transaction); ask for `proof` to check it in turn.",
      resolve: (m) => m.verification ?? UNCHECKED,
    }),
    blockhash: t.field({
      type: "BlockHash",
      nullable: true,
      resolve: (m) => m.block?.hash ?? null,
    }),
    blocktime: t.int({
      nullable: true,
      description: "Unix seconds.",
      resolve: (m) => m.block?.blocktime ?? null,
    }),
    time: t.int({
      nullable: true,
      description: "Unix seconds.",
      resolve: (m) => m.block?.time ?? null,
    }),
    hex: t.field({
      type: "Hex",
      description: "The exact serialized bytes.",
      resolve: (m) => m.tx.hex,
    }),
  }),
});
