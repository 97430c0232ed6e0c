import { solve, type Transaction } from "../bitcoin/index.ts";
import { MAX_SCRIPT_SIZE, OP_RETURN } from "../bitcoin/script-ops.ts";
import type { DevnetChain } from "./chain.ts";
import type { DevnetUtxos } from "./utxo.ts";

/** Core's default -minrelaytxfee and -incrementalrelayfee (v29), sat per 1000 vbytes. */
export const MIN_RELAY_FEERATE = 1000n;
/** Core's DUST_RELAY_TX_FEE, sat per 1000 vbytes. */
const DUST_RELAY_FEERATE = 3000n;
const COINBASE_MATURITY = 100;
const MIN_STANDARD_TX_NONWITNESS_SIZE = 65;

/** Why Core's AcceptToMemoryPool refused: TxValidationState's reject reason and debug text. */
export interface Rejection {
  /** RPC code sendrawtransaction answers with: -25 missing inputs, -26 rejected, -27 in the UTXO set. */
  code: -25 | -26 | -27;
  reason: string;
  debug?: string;
}

export interface Acceptance {
  fee: bigint;
  vsize: number;
}

function unspendable(script: Uint8Array): boolean {
  return (script.length > 0 && script[0] === OP_RETURN) || script.length > MAX_SCRIPT_SIZE;
}

/**
 * Core's GetDustThreshold: what spending the output would cost at the dust relay feerate: its
 * serialized size plus an input's (148 bytes, 67 for a witness program's).
 */
function dustThreshold(script: Uint8Array): bigint {
  if (unspendable(script)) return 0n;
  const outputSize = 8 + (script.length < 253 ? 1 : 3) + script.length;
  const witness =
    script.length >= 4 &&
    script.length <= 42 &&
    (script[0] === 0 || (script[0]! >= 0x51 && script[0]! <= 0x60)) &&
    script[1] === script.length - 2;
  // 107 bytes of scriptSig, a quarter of it for a witness (integer division, as in Core).
  const spend = witness ? 32 + 4 + 1 + 26 + 4 : 32 + 4 + 1 + 107 + 4;
  return (BigInt(outputSize + spend) * DUST_RELAY_FEERATE) / 1000n;
}

/** Core's FormatMoney: 8 decimals, trailing zeros trimmed down to two. */
export function formatMoney(sats: bigint): string {
  const neg = sats < 0n;
  const abs = neg ? -sats : sats;
  let frac = (abs % 100_000_000n).toString().padStart(8, "0");
  while (frac.length > 2 && frac.endsWith("0")) frac = frac.slice(0, -1);
  return `${neg ? "-" : ""}${abs / 100_000_000n}.${frac}`;
}

/**
 * devnet's AcceptToMemoryPool, in Core's order of checks as far as devnet can make them: the
 * standardness checks of PreChecks (coinbase, version, size, dust), already in mempool or chain,
 * inputs known and unspent (devnet's UTXO set), coinbase maturity, value in ≥ value out, the
 * minimum relay feerate. Scripts and signatures are not verified: devnet has no script
 * interpreter, so a transaction with wrong signatures is accepted.
 */
export function checkMempoolAccept(
  chain: DevnetChain,
  utxos: DevnetUtxos,
  tx: Transaction,
): Acceptance | Rejection {
  if (tx.isCoinbase) return { code: -26, reason: "coinbase" };
  if (tx.version < 1 || tx.version > 3) return { code: -26, reason: "version" };
  if (tx.strippedSize < MIN_STANDARD_TX_NONWITNESS_SIZE)
    return { code: -26, reason: "tx-size-small" };
  for (const o of tx.outputs) {
    const type = solve(o.scriptPubKey).type;
    if (type === "nonstandard") return { code: -26, reason: "scriptpubkey" };
    if (type !== "nulldata" && o.value < dustThreshold(o.scriptPubKey))
      return { code: -26, reason: "dust" };
  }
  if (chain.mempool.has(tx.txid)) return { code: -26, reason: "txn-already-in-mempool" };
  if (tx.outputs.some((_, n) => utxos.coin(tx.txid, n, false) !== undefined)) {
    return { code: -27, reason: "Transaction outputs already in utxo set" };
  }
  let valueIn = 0n;
  const spendHeight = chain.tip.height + 1;
  for (const input of tx.inputs) {
    const spender = utxos.spender(input.prevTxid, input.vout);
    if (spender !== undefined && chain.mempool.has(spender)) {
      return { code: -26, reason: "txn-mempool-conflict" };
    }
    const coin = utxos.coin(input.prevTxid, input.vout);
    if (!coin) return { code: -25, reason: "bad-txns-inputs-missingorspent" };
    if (coin.coinbase && spendHeight - coin.height < COINBASE_MATURITY) {
      return {
        code: -26,
        reason: "bad-txns-premature-spend-of-coinbase",
        debug: `tried to spend coinbase at depth ${spendHeight - coin.height}`,
      };
    }
    valueIn += coin.tx.outputs[coin.vout]!.value;
  }
  const valueOut = tx.outputs.reduce((s, o) => s + o.value, 0n);
  if (valueIn < valueOut) {
    return {
      code: -26,
      reason: "bad-txns-in-belowout",
      debug: `value in (${formatMoney(valueIn)}) < value out (${formatMoney(valueOut)})`,
    };
  }
  const fee = valueIn - valueOut;
  const minFee = (BigInt(tx.vsize) * MIN_RELAY_FEERATE) / 1000n;
  if (fee < minFee) {
    return { code: -26, reason: "min relay fee not met", debug: `${fee} < ${minFee}` };
  }
  return { fee, vsize: tx.vsize };
}

/** TxValidationState::ToString: the reason, then the debug text after a comma. */
export function rejectionText(r: Rejection): string {
  return r.debug === undefined ? r.reason : `${r.reason}, ${r.debug}`;
}
