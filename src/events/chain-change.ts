/** A block as a chain watcher names it. */
export interface BlockRef {
  height: number;
  hash: string;
}

/** What one operation did to the best chain: blocks left (tip first) and joined (lowest first). */
export interface ChainChange {
  tip: BlockRef;
  connected: BlockRef[];
  disconnected: BlockRef[];
}

/**
 * What /admin/devnet/* drives on one network: devnet's block producer (src/devnet/block-producer.ts)
 * is one. Declared here, below both, because the gateway's code does not depend on devnet; the
 * entry point (main.ts) hands devnet's producers over.
 */
export interface DevnetBlocks {
  mine(count: number): ChainChange;
  /** The change, or why devnet cannot take `depth` blocks off. */
  reorg(depth: number): ChainChange | { refused: string };
  /** Pays `sats` to `script` from devnet's own coins: the txid broadcast, or why not. */
  pay(script: Uint8Array, sats: number): DevnetPaid;
}

export type DevnetPaid = { txid: string } | { refused: string };
