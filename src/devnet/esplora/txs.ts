import { toHexReversed } from "../../bitcoin/index.ts";
import type { EsploraRequest } from "../../protocol/esplora/request.ts";
import { branchAndRoot } from "../electrum/merkle.ts";
import { bytes, type EsploraReply, json, notFound, text } from "./reply.ts";
import type { Spend } from "./spends.ts";
import { txJson } from "./tx-json.ts";
import { type EsploraView, heldTx, txStatus } from "./view.ts";

const NO_TX = "Transaction not found";

/** electrs' SpendingValue: `{"spent":false}`, or the spending input and its status. */
function spendingJson(spend: Spend | undefined) {
  if (!spend) return { spent: false };
  return { spent: true, txid: spend.txid, vin: spend.vin, status: txStatus(spend.block) };
}

/** `/tx/:txid/merkle-proof`: Electrum's get_merkle form, for a confirmed transaction. */
function merkleProof(view: EsploraView, txid: string): EsploraReply {
  const at = view.chain.txIndex.get(txid);
  if (!at) return notFound("Transaction not found or is unconfirmed");
  const hashes = at.block.block.transactions.map((tx) => tx.txidBytes);
  const { branch } = branchAndRoot(hashes, at.index);
  // json!() in electrs: its keys in order.
  return json({
    block_height: at.block.height,
    merkle: branch.map(toHexReversed),
    pos: at.index,
  });
}

/** The transaction endpoints but broadcast, as electrs answers them from its index. */
export function answerTxs(
  view: EsploraView,
  spends: (txid: string, vout: number) => Spend | undefined,
  r: EsploraRequest,
): EsploraReply | undefined {
  const txid = r.txid!;
  switch (r.endpoint) {
    case "esplora.tx.status":
      // A transaction electrs does not know is "not confirmed", not missing.
      return json(txStatus(heldTx(view, txid)?.block ?? null));
    case "esplora.tx.merkle-proof":
      return merkleProof(view, txid);
    case "esplora.tx.outspend":
      return json(spendingJson(spends(txid, r.number!)));
  }
  if (!r.endpoint.startsWith("esplora.tx")) return undefined;
  const held = heldTx(view, txid);
  if (!held) return notFound(NO_TX);
  switch (r.endpoint) {
    case "esplora.tx":
      return json(txJson(view, held.tx, held.block));
    case "esplora.tx.hex":
      return text(held.tx.hex);
    case "esplora.tx.raw":
      return bytes(held.tx.bytes);
    case "esplora.tx.outspends":
      return json(held.tx.outputs.map((_, vout) => spendingJson(spends(txid, vout))));
  }
  return undefined;
}
