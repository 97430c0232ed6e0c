import { isJsonNumber, isJsonObject, type Json } from "../../../protocol/json/json.ts";
import { builder, type FieldCost } from "../builder.ts";
import { codedError } from "../errors.ts";
import { ask } from "../upstream-calls.ts";

interface PackageTxModel {
  wtxid: string;
  txid: string;
  otherWtxid: string | null;
  vsize: number | null;
  baseFee: string | null;
  effectiveFeerate: string | null;
  effectiveIncludes: string[] | null;
  error: string | null;
}

interface PackageModel {
  message: string;
  results: PackageTxModel[];
  replaced: string[];
}

const str = (v: Json | undefined): string | null => (typeof v === "string" ? v : null);
const amount = (v: Json | undefined): string | null => (isJsonNumber(v) ? v.value : null);

const PackageTxRef = builder.objectRef<PackageTxModel>("PackageTransactionResult").implement({
  description: "What the node made of one transaction of a package (submitpackage's tx-results).",
  fields: (t) => ({
    wtxid: t.field({ type: "Hex", resolve: (r) => r.wtxid }),
    txid: t.field({ type: "TxId", resolve: (r) => r.txid }),
    otherWtxid: t.field({
      type: "Hex",
      nullable: true,
      description:
        "A transaction with the same txid and another witness was in the mempool: this one was ignored.",
      resolve: (r) => r.otherWtxid,
    }),
    vsize: t.int({ nullable: true, resolve: (r) => r.vsize }),
    baseFee: t.field({
      type: "BtcAmount",
      nullable: true,
      description: "fees.base: the transaction's fee.",
      resolve: (r) => r.baseFee,
    }),
    effectiveFeerate: t.field({
      type: "BtcAmount",
      nullable: true,
      description: "fees.effective-feerate, BTC/kvB; null for one already in the mempool.",
      resolve: (r) => r.effectiveFeerate,
    }),
    effectiveIncludes: t.field({
      type: ["Hex"],
      nullable: true,
      description: "fees.effective-includes: the wtxids whose fees and sizes the feerate counts.",
      resolve: (r) => r.effectiveIncludes,
    }),
    error: t.string({
      nullable: true,
      description: "Why the mempool refused it, in Core's words.",
      resolve: (r) => r.error,
    }),
  }),
});

const PackageResultRef = builder.objectRef<PackageModel>("PackageResult").implement({
  description: "Bitcoin Core's submitpackage answer.",
  fields: (t) => ({
    packageMessage: t.string({
      description: 'package_msg: "success" when every transaction is in the mempool.',
      resolve: (p) => p.message,
    }),
    transactions: t.field({
      type: [PackageTxRef],
      description: "tx-results, in the node's order (keyed by wtxid there).",
      resolve: (p) => p.results,
    }),
    replacedTransactions: t.field({
      type: ["TxId"],
      description: "replaced-transactions: txids the package replaced in the mempool.",
      resolve: (p) => p.replaced,
    }),
  }),
});

/** The node's answer, read member by member; anything not of its shape is a bad response. */
function packageModel(answer: Json): PackageModel {
  if (!isJsonObject(answer) || typeof answer.package_msg !== "string") {
    throw codedError("UPSTREAM_BAD_RESPONSE", "the node's submitpackage answer has no package_msg");
  }
  const map = isJsonObject(answer["tx-results"]) ? answer["tx-results"] : {};
  const results = Object.entries(map).map(([wtxid, r]): PackageTxModel => {
    const o = isJsonObject(r) ? r : {};
    const fees = isJsonObject(o.fees) ? o.fees : {};
    const includes = fees["effective-includes"];
    return {
      wtxid,
      txid: str(o.txid) ?? "",
      otherWtxid: str(o["other-wtxid"]),
      vsize: isJsonNumber(o.vsize) ? Number(o.vsize.value) : null,
      baseFee: amount(fees.base),
      effectiveFeerate: amount(fees["effective-feerate"]),
      effectiveIncludes: Array.isArray(includes) ? includes.map(String) : null,
      error: str(o.error),
    };
  });
  const replaced = answer["replaced-transactions"];
  return {
    message: answer.package_msg,
    results,
    replaced: Array.isArray(replaced) ? replaced.map(String) : [],
  };
}

builder.mutationFields((t) => ({
  submitPackage: t.field({
    type: PackageResultRef,
    description:
      "Submits a child with its unconfirmed parents, parents first, through the full node (submitpackage, its default fee and burn ceilings). Each transaction's fate is in the answer; a refusal of the whole (decoding -22, topology -25, count -8) is an error carrying Core's code (`rpcCode`). Charged as one submitpackage, as on the node route.",
    args: { rawTransactions: t.arg({ type: ["Hex"], required: true }) },
    extensions: { cost: { method: "submitpackage" } satisfies FieldCost },
    resolve: async (_root, { rawTransactions }, ctx) => {
      // Core's own bound (MAX_PACKAGE_COUNT), refused here in its words and not charged.
      if (rawTransactions.length < 1 || rawTransactions.length > 25) {
        throw codedError("INVALID_PARAMS", "Array must contain between 1 and 25 transactions.");
      }
      return packageModel(
        await ask(ctx.nodeCalls, { method: "submitpackage", params: [rawTransactions] }),
      );
    },
  }),
}));
