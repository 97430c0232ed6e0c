import type { Transaction } from "../bitcoin/index.ts";
import type { DevnetChain } from "./chain.ts";

/** Core's MEMPOOL_HEIGHT: the height a coin created by a mempool transaction reports. */
export const MEMPOOL_HEIGHT = 0x7fffffff;

/** A coin of devnet's UTXO set: an output no held block or mempool transaction spends. */
export interface DevnetCoin {
  tx: Transaction;
  vout: number;
  /** MEMPOOL_HEIGHT when the creating transaction is in the mempool. */
  height: number;
  coinbase: boolean;
}

/**
 * devnet's UTXO set as sendrawtransaction, gettxout and block production see it: outputs of the
 * transactions in held blocks and in the mempool, minus those any of them spends. devnet's
 * mainnet chain is sparse, so an output created in a block it does not hold is unknown (Core would
 * know it): a transaction spending one reads as spending a missing input.
 */
export class DevnetUtxos {
  private spent: Map<string, string> | undefined;
  private builtAt = "";

  constructor(private readonly chain: DevnetChain) {}

  /** The transaction that spends `txid:vout` (a block's or the mempool's), if any. */
  spender(txid: string, vout: number): string | undefined {
    return this.spends().get(`${txid}:${vout}`);
  }

  /** The coin at `txid:vout`, unspent; `includeMempool` false ignores the mempool both ways. */
  coin(txid: string, vout: number, includeMempool = true): DevnetCoin | undefined {
    const at = this.chain.txIndex.get(txid);
    const pooled = includeMempool ? this.chain.mempool.get(txid) : undefined;
    const tx = at ? at.block.block.transactions[at.index] : pooled;
    if (!tx || vout >= tx.outputs.length) return undefined;
    const by = this.spender(txid, vout);
    if (by !== undefined && (includeMempool || !this.chain.mempool.has(by))) return undefined;
    return {
      tx,
      vout,
      height: at ? at.block.height : MEMPOOL_HEIGHT,
      coinbase: tx.isCoinbase,
    };
  }

  /** Outpoint → spending txid, rebuilt when the tip or the mempool changed. */
  private spends(): Map<string, string> {
    const key = `${this.chain.tip.block.hash}:${this.chain.mempool.size}:${[...this.chain.mempool.keys()].at(-1) ?? ""}`;
    if (this.spent && this.builtAt === key) return this.spent;
    const spent = new Map<string, string>();
    const note = (tx: Transaction) => {
      if (tx.isCoinbase) return;
      for (const i of tx.inputs) spent.set(`${i.prevTxid}:${i.vout}`, tx.txid);
    };
    for (const height of this.chain.heights()) {
      for (const tx of this.chain.byHeight.get(height)!.block.transactions) note(tx);
    }
    for (const tx of this.chain.mempool.values()) note(tx);
    this.spent = spent;
    this.builtAt = key;
    return spent;
  }
}
