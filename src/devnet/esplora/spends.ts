import type { TxInput } from "../../bitcoin/index.ts";
import type { ChainBlock, DevnetChain } from "../chain.ts";

/** The input that spends an output: its transaction, its position, and the block it is in. */
export interface Spend {
  txid: string;
  vin: number;
  block: ChainBlock | null;
}

/**
 * electrs' spend index over devnet's chain: for each outpoint, the best chain's or the mempool's
 * input that spends it. Built on first use, again whenever the tip or the mempool changed (as
 * devnet's script index is).
 */
export function spendIndex(chain: DevnetChain): (txid: string, vout: number) => Spend | undefined {
  let index: Map<string, Spend> | undefined;
  let builtFor = "";
  return (txid, vout) => {
    const state = `${chain.tip.block.hash} ${chain.mempool.size} ${[...chain.mempool.keys()].at(-1) ?? ""}`;
    if (!index || builtFor !== state) {
      index = build(chain);
      builtFor = state;
    }
    return index.get(`${txid}:${vout}`);
  };
}

function build(chain: DevnetChain): Map<string, Spend> {
  const index = new Map<string, Spend>();
  const add = (txid: string, inputs: readonly TxInput[], block: ChainBlock | null) => {
    inputs.forEach((input, vin) => {
      index.set(`${input.prevTxid}:${input.vout}`, { txid, vin, block });
    });
  };
  for (const height of chain.heights()) {
    const block = chain.byHeight.get(height)!;
    for (const tx of block.block.transactions) if (!tx.isCoinbase) add(tx.txid, tx.inputs, block);
  }
  for (const tx of chain.mempool.values()) add(tx.txid, tx.inputs, null);
  return index;
}
