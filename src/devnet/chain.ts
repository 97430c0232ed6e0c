import { readdirSync, readFileSync } from "node:fs";
import {
  type Block,
  parseBlock,
  parseTransaction,
  readBlockRecords,
  type Transaction,
} from "../bitcoin/index.ts";
import { projectPath } from "../paths.ts";

const DATA_DIR = `${projectPath("data", "chain")}/`;

export interface ChainBlock {
  height: number;
  block: Block;
}

export interface TxLocation {
  block: ChainBlock;
  index: number;
}

/**
 * devnet's chain: real mainnet blocks at their real heights (a sparse chain: the heights between
 * the blocks we hold are simply absent), indexed by hash, height and txid, plus a mempool of real
 * transactions found in none of them. The tip is the highest block held.
 */
export class DevnetChain {
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
    if (!this.txIndex.has(tx.txid)) this.mempool.set(tx.txid, tx);
  }

  /** Confirmations as Core counts them: the tip has 1. */
  confirmations(entry: ChainBlock): number {
    return this.tip.height - entry.height + 1;
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

let cached: DevnetChain | undefined;

/** Loads data/chain once per process (devnet servers for several networks share it). */
export function loadDevnetChain(): DevnetChain {
  if (cached) return cached;
  const chain = new DevnetChain();
  const blocksDir = `${DATA_DIR}blocks/`;
  chain.addBlock(parseBlock(bytesOf(`${blocksDir}genesis.raw`)), 0);
  let height = 1;
  for (const raw of readBlockRecords(bytesOf(`${blocksDir}blocks1-255.dat`))) {
    chain.addBlock(parseBlock(raw), height++);
  }
  const rawFiles = readdirSync(blocksDir).filter(
    (f) => (f.endsWith(".raw") || f.endsWith(".blk")) && f !== "genesis.raw",
  );
  const blocks: Block[] = rawFiles.map((f) => parseBlock(bytesOf(blocksDir + f)));
  for (const raw of readBlockRecords(bytesOf(`${blocksDir}277647.dat`)))
    blocks.push(parseBlock(raw));
  const json = JSON.parse(readFileSync(`${blocksDir}bitcoin_mainnet_951658.json`, "utf8")) as {
    block: string;
  };
  blocks.push(parseBlock(plain(Buffer.from(json.block, "hex"))));
  for (const block of blocks) chain.addBlock(block, bip34Height(block));

  const mempool = JSON.parse(readFileSync(`${DATA_DIR}txs/mempool.json`, "utf8")) as {
    txs: { hex: string }[];
  };
  for (const { hex } of mempool.txs)
    chain.addToMempool(parseTransaction(plain(Buffer.from(hex, "hex"))));
  chain.addToMempool(
    parseTransaction(
      plain(Buffer.from(readFileSync(`${DATA_DIR}txs/huge_witness.hex`, "utf8").trim(), "hex")),
    ),
  );
  chain.addToMempool(parseTransaction(bytesOf(`${DATA_DIR}txs/megatx.bin`)));
  cached = chain;
  return chain;
}
