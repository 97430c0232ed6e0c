import { readOp, type Transaction, type TxInput, toHex } from "../../bitcoin/index.ts";
import type { ChainBlock } from "../chain.ts";
import { rustAsm, scriptAddress, scriptType } from "./script.ts";
import { type EsploraView, feeOf, spentOutput, txStatus } from "./view.ts";

/** electrs' TxOutValue, its fields in its order. */
export function outputJson(view: EsploraView, script: Uint8Array, value: bigint) {
  const address = scriptAddress(script, view.network);
  return {
    scriptpubkey: toHex(script),
    scriptpubkey_asm: rustAsm(script),
    scriptpubkey_type: scriptType(script),
    ...(address === undefined ? {} : { scriptpubkey_address: address }),
    value: Number(value),
  };
}

/** The last push of a script sig, if it ends with one (electrs' wrapped redeem script). */
function lastPush(scriptSig: Uint8Array): Uint8Array | undefined {
  let pc = 0;
  let last: Uint8Array | undefined;
  while (pc < scriptSig.length) {
    const op = readOp(scriptSig, pc);
    if (!op) return undefined;
    last = op.data ?? undefined;
    pc = op.end;
  }
  return last;
}

/** The scripts an input reveals: P2SH's redeem script, P2WSH's witness script, a tapscript. */
function innerScripts(input: TxInput, prevout: Uint8Array) {
  const isP2sh = scriptType(prevout) === "p2sh";
  const redeem = isP2sh ? lastPush(input.scriptSig) : undefined;
  const wsh = scriptType(prevout) === "v0_p2wsh" || (redeem && scriptType(redeem) === "v0_p2wsh");
  let witnessScript: Uint8Array | undefined;
  if (wsh) witnessScript = input.witness.at(-1);
  else if (scriptType(prevout) === "v1_p2tr") {
    // A script-path spend: the script sits before the control block (and an annex, if any).
    const w = input.witness;
    const annex = w.length >= 2 && w.at(-1)![0] === 0x50 ? 1 : 0;
    if (w.length - annex >= 2) witnessScript = w[w.length - annex - 2];
  }
  return {
    ...(redeem ? { inner_redeemscript_asm: rustAsm(redeem) } : {}),
    ...(witnessScript ? { inner_witnessscript_asm: rustAsm(witnessScript) } : {}),
  };
}

function inputJson(view: EsploraView, input: TxInput, coinbase: boolean) {
  const spent = coinbase ? undefined : spentOutput(view, input.prevTxid, input.vout);
  return {
    txid: input.prevTxid,
    vout: input.vout,
    prevout: spent ? outputJson(view, spent.script, spent.value) : null,
    scriptsig: toHex(input.scriptSig),
    scriptsig_asm: rustAsm(input.scriptSig),
    ...(input.witness.length > 0 ? { witness: input.witness.map(toHex) } : {}),
    is_coinbase: coinbase,
    sequence: input.sequence >>> 0,
    ...(spent ? innerScripts(input, spent.script) : {}),
  };
}

/** electrs' TransactionValue: the transaction with its inputs' prevouts, fee and status. */
export function txJson(view: EsploraView, tx: Transaction, block: ChainBlock | null) {
  const coinbase = tx.isCoinbase;
  return {
    txid: tx.txid,
    version: tx.version >>> 0,
    locktime: tx.locktime >>> 0,
    vin: tx.inputs.map((input) => inputJson(view, input, coinbase)),
    vout: tx.outputs.map((o) => outputJson(view, o.scriptPubKey, o.value)),
    size: tx.size,
    weight: tx.weight,
    fee: Number(feeOf(view, tx)),
    status: txStatus(block),
  };
}
