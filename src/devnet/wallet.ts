import {
  fromHexReversed,
  parseTransaction,
  serializeTransaction,
  type Transaction,
  toHex,
} from "../bitcoin/index.ts";
import type { DevnetChain } from "./chain.ts";
import { DEVNET_PAYOUT } from "./payout.ts";
import { DevnetUtxos } from "./utxo.ts";

/** Core's COINBASE_MATURITY: a coinbase output is spendable 100 blocks on. */
const COINBASE_MATURITY = 100;
/** What devnet's payments pay per vbyte: over the minimum relay feerate, never in doubt. */
const FEERATE_SAT_PER_VB = 2n;
/** Below this, change is left to the fee (P2WSH's dust threshold is 330). */
const CHANGE_MIN_SATS = 1_000n;
/** Inputs one payment spends at most: a payment too large for that is refused. */
const INPUTS_MAX = 500;

interface Coin {
  txid: string;
  vout: number;
  value: bigint;
}

const PAYOUT_HEX = toHex(DEVNET_PAYOUT);

/**
 * devnet's own coins, spendable now: outputs paying devnet's payout script (P2WSH of OP_TRUE, so
 * the witness is the script alone and nothing is signed) that nothing spends, coinbases mature.
 * Mempool outputs (an earlier payment's change) count: Core would spend them too.
 */
function spendable(chain: DevnetChain, utxos: DevnetUtxos): Coin[] {
  const coins: Coin[] = [];
  const spendHeight = chain.tip.height + 1;
  const add = (tx: Transaction, height: number | null) => {
    if (tx.isCoinbase && (height === null || spendHeight - height < COINBASE_MATURITY)) return;
    tx.outputs.forEach((o, vout) => {
      if (toHex(o.scriptPubKey) !== PAYOUT_HEX || o.value === 0n) return;
      if (utxos.coin(tx.txid, vout)) coins.push({ txid: tx.txid, vout, value: o.value });
    });
  };
  for (const height of chain.heights()) {
    for (const tx of chain.byHeight.get(height)!.block.transactions) add(tx, height);
  }
  for (const tx of chain.mempool.values()) add(tx, null);
  return coins;
}

function build(coins: readonly Coin[], script: Uint8Array, sats: bigint, change: bigint) {
  const outputs = [{ value: sats, scriptPubKey: script }];
  if (change >= CHANGE_MIN_SATS) outputs.push({ value: change, scriptPubKey: DEVNET_PAYOUT });
  return parseTransaction(
    serializeTransaction({
      version: 2,
      locktime: 0,
      inputs: coins.map((c) => ({
        prevTxid: c.txid,
        prevTxidBytes: fromHexReversed(c.txid),
        vout: c.vout,
        scriptSig: new Uint8Array(0),
        sequence: 0xfffffffd,
        witness: [Uint8Array.of(0x51)],
      })),
      outputs,
    }),
  );
}

/**
 * A transaction paying `sats` to `script` from devnet's own coins, change back to devnet, at a
 * small fixed feerate; or why there is none (not enough mature coins: mine first).
 */
export function devnetPayment(
  chain: DevnetChain,
  script: Uint8Array,
  sats: bigint,
): Transaction | { refused: string } {
  const coins = spendable(chain, new DevnetUtxos(chain));
  const picked: Coin[] = [];
  let total = 0n;
  for (const coin of coins) {
    if (picked.length >= INPUTS_MAX) break;
    picked.push(coin);
    total += coin.value;
    // An input and the outputs weigh under 200 vbytes: a bound on the fee before building.
    const feeBound = BigInt(picked.length * 100 + 100) * FEERATE_SAT_PER_VB;
    if (total < sats + feeBound) continue;
    const draft = build(picked, script, sats, total - sats);
    const fee = BigInt(draft.vsize) * FEERATE_SAT_PER_VB;
    return build(picked, script, sats, total - sats - fee);
  }
  return {
    refused: `devnet has ${total} sats of mature coins on ${chain.network}, not enough to pay ${sats}: mine blocks first (devnet mine --blocks 101 matures the first coinbase)`,
  };
}
