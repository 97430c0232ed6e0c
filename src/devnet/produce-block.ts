import { assembleBlock, grindNonce } from "../bitcoin/block-build.ts";
import { blockSubsidy, MAX_BLOCK_WEIGHT, SEGWIT_HEIGHT } from "../bitcoin/consensus.ts";
import {
  type Block,
  computeMerkleRoot,
  deriveTarget,
  type Prevout,
  parseTransaction,
  serializeTransaction,
  sha256d,
  type Transaction,
  txFee,
} from "../bitcoin/index.ts";
import { concatBytes, pushInt } from "../bitcoin/script-build.ts";
import type { ChainBlock, DevnetChain } from "./chain.ts";
import { medianTimePast } from "./chain-facts.ts";

type Prevouts = (txid: string, vout: number) => Prevout | undefined;

const WITNESS_COMMITMENT_HEADER = Uint8Array.of(0x6a, 0x24, 0xaa, 0x21, 0xa9, 0xed);
/** Room Core's BlockAssembler keeps for the coinbase (DEFAULT_BLOCK_RESERVED_WEIGHT). */
const COINBASE_RESERVED_WEIGHT = 8_000;
/** Nonces tried before giving up, as generatetoaddress's default maxtries. */
const MAX_TRIES = 1_000_000;

/**
 * Core's ComputeBlockVersion: the version-bits top bits, plus bit 28 on regtest, where the
 * testdummy deployment is started and signals.
 */
function blockVersion(chain: DevnetChain): number {
  return chain.network === "regtest" ? 0x30000000 : 0x20000000;
}

/**
 * Core's BlockAssembler::CreateNewBlock coinbase: `<height> OP_0` (BIP34), locked to the height
 * below and non-final (v30's coinbase timelock), paying subsidy and fees to `script`; from the
 * segwit height, a witness commitment output (GenerateCoinbaseCommitment) over the block's wtxids,
 * with the all-zero reserved value as the coinbase's witness.
 */
function coinbaseFor(
  chain: DevnetChain,
  height: number,
  script: Uint8Array,
  txs: readonly Transaction[],
  fees: bigint,
): Transaction {
  const commit = height >= SEGWIT_HEIGHT[chain.network];
  const outputs = [{ value: blockSubsidy(height, chain.network) + fees, scriptPubKey: script }];
  if (commit) {
    const root = computeMerkleRoot([new Uint8Array(32), ...txs.map((t) => t.wtxidBytes)]);
    outputs.push({
      value: 0n,
      scriptPubKey: concatBytes(WITNESS_COMMITMENT_HEADER, sha256d(root, new Uint8Array(32))),
    });
  }
  return parseTransaction(
    serializeTransaction({
      version: 2,
      locktime: Math.max(height - 1, 0),
      inputs: [
        {
          prevTxid: "00".repeat(32),
          prevTxidBytes: new Uint8Array(32),
          vout: 0xffffffff,
          scriptSig: concatBytes(pushInt(height), Uint8Array.of(0x00)),
          sequence: 0xfffffffe,
          witness: commit ? [new Uint8Array(32)] : [],
        },
      ],
      outputs,
    }),
  );
}

/**
 * The mempool transactions a block template takes, in mempool order with parents first: those
 * whose every input devnet can price (a held block's output or an earlier pick's), within the
 * block's weight. Core's mempool could not hold the others (their inputs are missing to it too).
 */
export function selectFromMempool(
  chain: DevnetChain,
  prevouts: Prevouts,
): { txs: Transaction[]; fees: bigint } {
  const picked = new Map<string, Transaction>();
  const lookup: Prevouts = (txid, vout) => {
    const parent = picked.get(txid);
    if (!parent) return prevouts(txid, vout);
    const o = parent.outputs[vout];
    return o && { valueSats: o.value, scriptPubKey: o.scriptPubKey, height: 0, coinbase: false };
  };
  let weight = COINBASE_RESERVED_WEIGHT;
  let fees = 0n;
  let progress = true;
  while (progress) {
    progress = false;
    for (const tx of chain.mempool.values()) {
      if (picked.has(tx.txid) || weight + tx.weight > MAX_BLOCK_WEIGHT) continue;
      const fee = txFee(tx, lookup);
      if (fee === undefined) continue;
      picked.set(tx.txid, tx);
      weight += tx.weight;
      fees += fee;
      progress = true;
    }
  }
  return { txs: [...picked.values()], fees };
}

/**
 * Builds a block on `chain`'s tip holding `txs` and a coinbase paying `script`, adds it to the
 * chain and takes its transactions out of the mempool. Proof of work is real where its target
 * is reachable in a few tries (regtest's 0x207fffff, about 2); elsewhere the block keeps the
 * tip's nBits and nonce 0 without meeting them: devnet does not validate proof of work.
 */
export function produceBlock(
  chain: DevnetChain,
  script: Uint8Array,
  txs: readonly Transaction[],
  fees: bigint,
): ChainBlock {
  const tip = chain.tip;
  const height = tip.height + 1;
  const bits = Number.parseInt(tip.block.bits, 16);
  const mtp = medianTimePast(chain, tip) ?? tip.block.time;
  // A block like one taken off the chain on this parent (same payout and transactions within the
  // same second: a reorganisation's replacement) would be that block again, hash and all; Core's
  // miners move nTime on, and so does devnet, so the replacement is a block of its own.
  let time = Math.max(mtp + 1, Math.floor(Date.now() / 1000));
  for (const off of [...chain.invalidated(), ...chain.staleBlocks()]) {
    if (off.block.previousblockhash === tip.block.hash) time = Math.max(time, off.block.time + 1);
  }
  const coinbase = coinbaseFor(chain, height, script, txs, fees);
  const target = deriveTarget(bits, chain.network);
  const reachable = target !== undefined && target >= 1n << 250n;
  const block: Block = assembleBlock(
    { version: blockVersion(chain), previousblockhash: tip.block.hash, time, bits, nonce: 0 },
    [coinbase, ...txs],
    reachable ? (h) => grindNonce(h, target, MAX_TRIES) ?? 0 : undefined,
  );
  for (const tx of txs) chain.mempool.delete(tx.txid);
  chain.addBlock(block, height);
  return chain.tip;
}

/**
 * generatetoaddress's loop: `count` blocks on the tip, each taking the mempool transactions it can
 * price, paid to `script`; the new tip is announced once, after the last.
 */
export function mineBlocks(
  chain: DevnetChain,
  prevouts: Prevouts,
  script: Uint8Array,
  count: number,
): ChainBlock[] {
  const made: ChainBlock[] = [];
  for (let i = 0; i < count; i++) {
    const { txs, fees } = selectFromMempool(chain, prevouts);
    made.push(produceBlock(chain, script, txs, fees));
  }
  if (made.length > 0) chain.tipChanged();
  return made;
}
