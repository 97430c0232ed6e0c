import {
  type Network,
  type Prevout,
  ScriptPubKeyParts,
  type TxInput,
  type TxOutput,
  toHex,
} from "../../../bitcoin/index.ts";
import { builder } from "../builder.ts";
import { Amount } from "./amount.ts";
import { ScriptPubKey, ScriptSig } from "./script.ts";

export interface InputModel {
  input: TxInput;
  index: number;
  coinbase: boolean;
  network: Network;
  prevout: Prevout | undefined;
}

export interface OutputModel {
  output: TxOutput;
  n: number;
  network: Network;
  /** The transaction's decoded scripts, when they are shared (TransactionModel.scripts). */
  scripts: (ScriptPubKeyParts | undefined)[] | undefined;
}

/**
 * The fields below whose resolvers read their parent alone and answer at once (see
 * TRANSACTION_PLAIN_FIELDS in transaction.ts): all of them. A field added must keep that, or be
 * left out here.
 */
export const IO_PLAIN_FIELDS: Readonly<Record<string, ReadonlySet<string>>> = {
  SpentOutput: new Set(["generated", "height", "value", "scriptPubKey"]),
  TxInput: new Set([
    "index",
    "coinbase",
    "txid",
    "vout",
    "scriptSig",
    "witness",
    "sequence",
    "prevout",
  ]),
  TxOutput: new Set(["n", "value", "scriptPubKey"]),
};

export const SpentOutput = builder
  .objectRef<{ prevout: Prevout; network: Network }>("SpentOutput")
  .implement({
    description: "The output an input spends, from the node's undo data.",
    fields: (t) => ({
      generated: t.boolean({
        description: "Created by a coinbase.",
        resolve: (p) => p.prevout.coinbase,
      }),
      height: t.int({ resolve: (p) => p.prevout.height }),
      value: t.field({ type: Amount, resolve: (p) => p.prevout.valueSats }),
      scriptPubKey: t.field({
        type: ScriptPubKey,
        resolve: (p) => new ScriptPubKeyParts(p.prevout.scriptPubKey, p.network),
      }),
    }),
  });

export const TxIn = builder.objectRef<InputModel>("TxInput").implement({
  description: "A transaction input.",
  fields: (t) => ({
    index: t.int({ resolve: (i) => i.index }),
    coinbase: t.field({
      type: "Hex",
      nullable: true,
      description:
        "The coinbase script, for a coinbase input (then txid, vout and scriptSig are null).",
      resolve: (i) => (i.coinbase ? toHex(i.input.scriptSig) : null),
    }),
    txid: t.field({
      type: "TxId",
      nullable: true,
      resolve: (i) => (i.coinbase ? null : i.input.prevTxid),
    }),
    vout: t.int({ nullable: true, resolve: (i) => (i.coinbase ? null : i.input.vout) }),
    scriptSig: t.field({
      type: ScriptSig,
      nullable: true,
      resolve: (i) => (i.coinbase ? null : i.input.scriptSig),
    }),
    witness: t.field({ type: ["Hex"], resolve: (i) => i.input.witness.map(toHex) }),
    sequence: t.field({
      type: "UInt32",
      description: "nSequence.",
      resolve: (i) => i.input.sequence,
    }),
    prevout: t.field({
      type: SpentOutput,
      nullable: true,
      description: "Known for mined, non-coinbase transactions (the node's undo data).",
      resolve: (i) => (i.prevout ? { prevout: i.prevout, network: i.network } : null),
    }),
  }),
});

export const TxOut = builder.objectRef<OutputModel>("TxOutput").implement({
  description: "A transaction output.",
  fields: (t) => ({
    n: t.int({ resolve: (o) => o.n }),
    value: t.field({ type: Amount, resolve: (o) => o.output.value }),
    scriptPubKey: t.field({
      type: ScriptPubKey,
      resolve: (o) => {
        if (!o.scripts) return new ScriptPubKeyParts(o.output.scriptPubKey, o.network);
        o.scripts[o.n] ??= new ScriptPubKeyParts(o.output.scriptPubKey, o.network);
        return o.scripts[o.n]!;
      },
    }),
  }),
});
