import { readdirSync, readFileSync } from "node:fs";
import { genesisBlock } from "../bitcoin/genesis.ts";
import {
  type Block,
  parseBlock,
  parseTransaction,
  readBlockRecords,
  type Transaction,
} from "../bitcoin/index.ts";
import type { NetworkName } from "../config/schema.ts";
import { projectPath } from "../util/paths.ts";

const DATA_DIR = `${projectPath("data", "chain")}/`;

export interface ChainBlock {
  height: number;
  block: Block;
}

/** Values Core reported for a block whose ancestors devnet does not hold (see docs/users/devnet.md). */
export interface BlockAnchor {
  mediantime: number;
  chainwork: bigint;
}

export interface TxLocation {
  block: ChainBlock;
  index: number;
}

/**
 * One network's devnet chain, indexed by hash, height and txid, plus a mempool. Mainnet's holds
 * real blocks at their real heights (a sparse chain: the heights between the blocks we hold are
 * simply absent) and real transactions found in none of them; the other networks' start from
 * their real genesis block and grow by the blocks devnet's Core produces. The tip is the highest
 * block held.
 */
export class DevnetChain {
  constructor(readonly network: NetworkName = "mainnet") {}

  /** Core's own mediantime and chainwork for blocks whose ancestors devnet lacks (951658). */
  readonly anchors = new Map<string, BlockAnchor>();
  /** chainWork's results, by block hash (a block's work never changes). */
  readonly workMemo = new Map<string, bigint>();

  readonly byHash = new Map<string, ChainBlock>();
  readonly byHeight = new Map<number, ChainBlock>();
  readonly txIndex = new Map<string, TxLocation>();
  readonly mempool = new Map<string, Transaction>();
  tip!: ChainBlock;

  addBlock(block: Block, height: number): void {
    const entry = { height, block };
    this.byHash.set(block.hash, entry);
    this.byHeight.set(height, entry);
    block.transactions.forEach((tx, index) => {
      // BIP30's two duplicated coinbases (heights 91842/91880) are not in our data; first wins.
      if (!this.txIndex.has(tx.txid)) this.txIndex.set(tx.txid, { block: entry, index });
    });
    if (!this.tip || height > this.tip.height) this.tip = entry;
  }

  addToMempool(tx: Transaction): void {
    if (this.txIndex.has(tx.txid) || this.mempool.has(tx.txid)) return;
    this.mempool.set(tx.txid, tx);
    this.changed();
  }

  /** Confirmations as Core counts them: the tip has 1. */
  confirmations(entry: ChainBlock): number {
    return this.tip.height - entry.height + 1;
  }

  /** Blocks taken off the best chain by invalidateBlock, until reconsidered. */
  private readonly invalid: ChainBlock[] = [];
  /** Blocks a reorganisation replaced by a longer branch: known by hash, off the best chain. */
  private readonly stale: ChainBlock[] = [];
  private readonly tipListeners = new Set<(tip: ChainBlock) => void>();
  private readonly changeListeners = new Set<() => void>();

  /**
   * Calls `listener` with the tip whenever an operation on the chain ends with a new best chain
   * (tipChanged); returns the function that stops it. devnet's Electrum server announces the tip
   * to its headers subscribers this way, whoever changed the chain.
   */
  onTip(listener: (tip: ChainBlock) => void): () => void {
    this.tipListeners.add(listener);
    return () => this.tipListeners.delete(listener);
  }

  /**
   * Said once an operation (a batch of produced blocks, a reorganisation) is complete, not per
   * block: ElectrumX too notifies the tip once per batch of blocks it processed.
   */
  tipChanged(): void {
    for (const listener of this.tipListeners) listener(this.tip);
    this.changed();
  }

  /**
   * Calls `listener` whenever a script's history may have changed: a transaction entered the
   * mempool, or an operation on the chain ended (tipChanged). devnet's Electrum server re-reads
   * its sessions' subscribed statuses this way, as ElectrumX does after each mempool refresh and
   * each block; returns the function that stops it.
   */
  onChange(listener: () => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  private changed(): void {
    for (const listener of this.changeListeners) listener();
  }

  /**
   * Takes the best chain's blocks from `height` up off it, into `into`: their transactions other
   * than coinbases return to the mempool, the blocks stay known by hash, and the tip falls to the
   * highest block below.
   */
  private takeOff(height: number, into: ChainBlock[]): void {
    for (const h of this.heights()) {
      if (h < height) continue;
      const block = this.byHeight.get(h)!;
      this.byHeight.delete(h);
      for (const tx of block.block.transactions) {
        if (this.txIndex.get(tx.txid)?.block !== block) continue;
        this.txIndex.delete(tx.txid);
        if (!tx.isCoinbase) this.mempool.set(tx.txid, tx);
      }
      into.push(block);
    }
    const heights = this.heights();
    this.tip = this.byHeight.get(heights[heights.length - 1]!)!;
  }

  /**
   * Core's `invalidateblock`: the block and every block above it leave the best chain, until
   * reconsidered. How tests stage a reorganisation; devnet's chain does not validate, so there is
   * nothing else to undo.
   */
  invalidateBlock(hash: string): boolean {
    const entry = this.byHash.get(hash);
    if (!entry || this.byHeight.get(entry.height) !== entry) return false;
    this.takeOff(entry.height, this.invalid);
    return true;
  }

  /**
   * The first half of a reorganisation: the top `depth` blocks leave the best chain as a stale
   * branch (getchaintips' valid-fork), to be outgrown by the blocks produced next. Refused (null)
   * unless every height from the fork point to the tip is held, so the new branch builds on the
   * fork point itself (on sparse mainnet: only above 951658, on blocks devnet produced).
   */
  disconnectTop(depth: number): ChainBlock[] | null {
    const fork = this.tip.height - depth;
    if (depth < 1 || fork < 0) return null;
    for (let h = fork; h <= this.tip.height; h++) if (!this.byHeight.has(h)) return null;
    const from = this.stale.length;
    this.takeOff(fork + 1, this.stale);
    return this.stale.slice(from).reverse();
  }

  /** The blocks invalidateBlock took off the best chain (getchaintips' invalid branch). */
  invalidated(): readonly ChainBlock[] {
    return this.invalid;
  }

  /** The blocks reorganisations left behind (getchaintips' valid-fork branches). */
  staleBlocks(): readonly ChainBlock[] {
    return this.stale;
  }

  /** Core's `reconsiderblock` (of every invalidated block): they are the best chain again. */
  reconsiderBlocks(): void {
    const blocks = this.invalid.splice(0).sort((a, b) => a.height - b.height);
    for (const b of blocks) {
      for (const tx of b.block.transactions) this.mempool.delete(tx.txid);
      this.addBlock(b.block, b.height);
    }
  }

  /** Heights held, ascending. */
  heights(): number[] {
    return [...this.byHeight.keys()].sort((a, b) => a - b);
  }
}

/** BIP34: from height 227,931 the coinbase's first push is the block height. */
function bip34Height(block: Block): number {
  const script = block.transactions[0]!.inputs[0]!.scriptSig;
  const len = script[0]!;
  let height = 0;
  for (let i = len; i >= 1; i--) height = height * 256 + script[i]!;
  return height;
}

/**
 * The bytes as a plain Uint8Array: the codec keeps views into what it parses, and a view of a
 * Buffer is a Buffer, which costs a JavaScript constructor call each; the chain's few million
 * views made that a third of devnet's start-up.
 */
function plain(buf: Buffer): Uint8Array {
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
}

function bytesOf(path: string): Uint8Array {
  return plain(readFileSync(path));
}

let oracle: DevnetChain | null = null;

/**
 * The network's devnet chain as data: mainnet's from data/chain, made once per process and never
 * mined on (tests read it as the oracle), the others their genesis block alone (built as Core's
 * chainparams build it). A devnet serves a chain of its own (`newDevnetChain`).
 */
export function loadDevnetChain(network: NetworkName = "mainnet"): DevnetChain {
  if (network !== "mainnet") return newDevnetChain(network);
  oracle ??= newDevnetChain("mainnet");
  return oracle;
}

/**
 * A new chain for one devnet: what it mines, invalidates or takes into its mempool stays its own,
 * however many devnets a process starts (test files share a worker's modules: a block mined on one
 * file's mainnet must not move another's tip). Mainnet's blocks and transactions are parsed once
 * per process and shared (they are never changed); each chain indexes them afresh.
 */
export function newDevnetChain(network: NetworkName): DevnetChain {
  const chain = new DevnetChain(network);
  if (network !== "mainnet") {
    chain.addBlock(genesisBlock(network), 0);
    return chain;
  }
  const data = mainnetData();
  for (const [hash, anchor] of data.anchors) chain.anchors.set(hash, anchor);
  for (const [block, height] of data.blocks) chain.addBlock(block, height);
  for (const tx of data.mempool) chain.addToMempool(tx);
  return chain;
}

interface MainnetData {
  /** Each block with its height, in the order they are added. */
  blocks: [Block, number][];
  anchors: [string, { mediantime: number; chainwork: bigint }][];
  mempool: Transaction[];
}

let parsed: MainnetData | null = null;

function mainnetData(): MainnetData {
  if (parsed) return parsed;
  const blocksDir = `${DATA_DIR}blocks/`;
  const ordered: [Block, number][] = [[parseBlock(bytesOf(`${blocksDir}genesis.raw`)), 0]];
  let height = 1;
  for (const raw of readBlockRecords(bytesOf(`${blocksDir}blocks1-255.dat`))) {
    ordered.push([parseBlock(raw), height++]);
  }
  const rawFiles = readdirSync(blocksDir).filter(
    (f) => (f.endsWith(".raw") || f.endsWith(".blk")) && f !== "genesis.raw",
  );
  const blocks: Block[] = rawFiles.map((f) => parseBlock(bytesOf(blocksDir + f)));
  for (const raw of readBlockRecords(bytesOf(`${blocksDir}277647.dat`)))
    blocks.push(parseBlock(raw));
  const json = JSON.parse(readFileSync(`${blocksDir}bitcoin_mainnet_951658.json`, "utf8")) as {
    block: string;
    hash: string;
    mediantime: number;
    chainwork: string;
  };
  blocks.push(parseBlock(plain(Buffer.from(json.block, "hex"))));
  for (const block of blocks) ordered.push([block, bip34Height(block)]);
  const mempoolJson = JSON.parse(readFileSync(`${DATA_DIR}txs/mempool.json`, "utf8")) as {
    txs: { hex: string }[];
  };
  const mempool = mempoolJson.txs.map(({ hex }) =>
    parseTransaction(plain(Buffer.from(hex, "hex"))),
  );
  mempool.push(
    parseTransaction(
      plain(Buffer.from(readFileSync(`${DATA_DIR}txs/huge_witness.hex`, "utf8").trim(), "hex")),
    ),
  );
  mempool.push(parseTransaction(bytesOf(`${DATA_DIR}txs/megatx.bin`)));
  parsed = {
    blocks: ordered,
    // Core's getblock answer for 951658 gives what its 951,647 missing ancestors would.
    anchors: [
      [json.hash, { mediantime: json.mediantime, chainwork: BigInt(`0x${json.chainwork}`) }],
    ],
    mempool,
  };
  return parsed;
}
