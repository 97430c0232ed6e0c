import type { MempoolV1Endpoint } from "../../protocol/esplora/mempool-v1.ts";
import type { EsploraEndpoint } from "../../protocol/esplora/request.ts";

/** One Esplora endpoint as the catalogue shows it: its verb, its path and an example devnet answers. */
export interface EsploraCatalogueEntry {
  endpoint: EsploraEndpoint | MempoolV1Endpoint;
  verb: "GET" | "POST";
  /** The path below `/api`, parameters as `:name`. */
  path: string;
  summary: string;
  /** The path of an example call that devnet answers on mainnet. */
  example: string;
}

const BLOCK_170 = "00000000d1145790a8694403d4063f323d499e655c83426834d4ce2f8dd4a2ee";
const HAL_TXID = "f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16";
/** Block 277647's miner payout address, and the script hash of Hal's P2PK output (block 170). */
const ADDRESS = "14cZMQk89mRYQkDEj8Rn25AnGoBi5H6uer";
const SCRIPTHASH = "799c48c4482e6a9726b0ee7f1609fb83c52a0d63b9c1d0b3fd8770f26e1c4677";

/** Every endpoint of the Esplora route, in Esplora's own order (API.md). */
export const ESPLORA_CATALOGUE: readonly EsploraCatalogueEntry[] = (
  [
    [
      "esplora.tx",
      "GET",
      "/tx/:txid",
      "A transaction with its prevouts, fee and status",
      `/tx/${HAL_TXID}`,
    ],
    [
      "esplora.tx.status",
      "GET",
      "/tx/:txid/status",
      "Whether a transaction is confirmed, and where",
      `/tx/${HAL_TXID}/status`,
    ],
    ["esplora.tx.hex", "GET", "/tx/:txid/hex", "A transaction in hex", `/tx/${HAL_TXID}/hex`],
    ["esplora.tx.raw", "GET", "/tx/:txid/raw", "A transaction's bytes", `/tx/${HAL_TXID}/raw`],
    [
      "esplora.tx.merkle-proof",
      "GET",
      "/tx/:txid/merkle-proof",
      "A confirmed transaction's merkle branch (Electrum's form)",
      `/tx/${HAL_TXID}/merkle-proof`,
    ],
    [
      "esplora.tx.outspend",
      "GET",
      "/tx/:txid/outspend/:vout",
      "Whether an output is spent, and by what",
      `/tx/${HAL_TXID}/outspend/0`,
    ],
    [
      "esplora.tx.outspends",
      "GET",
      "/tx/:txid/outspends",
      "Whether each output of a transaction is spent",
      `/tx/${HAL_TXID}/outspends`,
    ],
    [
      "esplora.tx.broadcast",
      "POST",
      "/tx",
      "Broadcasts a transaction given in hex as the body; its txid",
      "/tx",
    ],
    [
      "esplora.address",
      "GET",
      "/address/:address",
      "An address's confirmed and mempool totals",
      `/address/${ADDRESS}`,
    ],
    [
      "esplora.address.txs",
      "GET",
      "/address/:address/txs",
      "An address's mempool transactions, then its 25 newest confirmed ones",
      `/address/${ADDRESS}/txs`,
    ],
    [
      "esplora.address.txs.chain",
      "GET",
      "/address/:address/txs/chain[/:last_seen_txid]",
      "An address's confirmed transactions, 25 at a time, newest first",
      `/address/${ADDRESS}/txs/chain`,
    ],
    [
      "esplora.address.txs.mempool",
      "GET",
      "/address/:address/txs/mempool",
      "An address's mempool transactions (up to 50)",
      `/address/${ADDRESS}/txs/mempool`,
    ],
    [
      "esplora.address.utxo",
      "GET",
      "/address/:address/utxo",
      "An address's unspent outputs",
      `/address/${ADDRESS}/utxo`,
    ],
    [
      "esplora.scripthash",
      "GET",
      "/scripthash/:hash",
      "A script's confirmed and mempool totals (hash: SHA-256 of the script)",
      `/scripthash/${SCRIPTHASH}`,
    ],
    [
      "esplora.scripthash.txs",
      "GET",
      "/scripthash/:hash/txs",
      "A script's mempool transactions, then its 25 newest confirmed ones",
      `/scripthash/${SCRIPTHASH}/txs`,
    ],
    [
      "esplora.scripthash.txs.chain",
      "GET",
      "/scripthash/:hash/txs/chain[/:last_seen_txid]",
      "A script's confirmed transactions, 25 at a time, newest first",
      `/scripthash/${SCRIPTHASH}/txs/chain`,
    ],
    [
      "esplora.scripthash.txs.mempool",
      "GET",
      "/scripthash/:hash/txs/mempool",
      "A script's mempool transactions (up to 50)",
      `/scripthash/${SCRIPTHASH}/txs/mempool`,
    ],
    [
      "esplora.scripthash.utxo",
      "GET",
      "/scripthash/:hash/utxo",
      "A script's unspent outputs",
      `/scripthash/${SCRIPTHASH}/utxo`,
    ],
    [
      "esplora.block",
      "GET",
      "/block/:hash",
      "A block's header fields, size, weight and transaction count",
      `/block/${BLOCK_170}`,
    ],
    [
      "esplora.block.header",
      "GET",
      "/block/:hash/header",
      "A block's header in hex",
      `/block/${BLOCK_170}/header`,
    ],
    [
      "esplora.block.status",
      "GET",
      "/block/:hash/status",
      "Whether a block is on the best chain, and the next one",
      `/block/${BLOCK_170}/status`,
    ],
    [
      "esplora.block.txs",
      "GET",
      "/block/:hash/txs[/:start_index]",
      "A block's transactions, 25 at a time",
      `/block/${BLOCK_170}/txs`,
    ],
    [
      "esplora.block.txids",
      "GET",
      "/block/:hash/txids",
      "A block's txids",
      `/block/${BLOCK_170}/txids`,
    ],
    [
      "esplora.block.txid",
      "GET",
      "/block/:hash/txid/:index",
      "The txid at a position in a block",
      `/block/${BLOCK_170}/txid/1`,
    ],
    ["esplora.block.raw", "GET", "/block/:hash/raw", "A block's bytes", `/block/${BLOCK_170}/raw`],
    [
      "esplora.block-height",
      "GET",
      "/block-height/:height",
      "The hash of the best chain's block at a height",
      "/block-height/170",
    ],
    [
      "esplora.blocks",
      "GET",
      "/blocks[/:start_height]",
      "Ten blocks down from the tip or a height",
      "/blocks/170",
    ],
    [
      "esplora.blocks.tip.height",
      "GET",
      "/blocks/tip/height",
      "The height of the best chain's tip",
      "/blocks/tip/height",
    ],
    [
      "esplora.blocks.tip.hash",
      "GET",
      "/blocks/tip/hash",
      "The hash of the best chain's tip",
      "/blocks/tip/hash",
    ],
    [
      "esplora.mempool",
      "GET",
      "/mempool",
      "The mempool's count, vsize, fees and fee histogram",
      "/mempool",
    ],
    [
      "esplora.mempool.txids",
      "GET",
      "/mempool/txids",
      "Every txid in the mempool",
      "/mempool/txids",
    ],
    [
      "esplora.mempool.recent",
      "GET",
      "/mempool/recent",
      "The last ten transactions into the mempool",
      "/mempool/recent",
    ],
    [
      "esplora.fee-estimates",
      "GET",
      "/fee-estimates",
      "Feerates (sat/vB) by confirmation target",
      "/fee-estimates",
    ],
    [
      "esplora.v1.block",
      "GET",
      "/v1/block/:hash",
      "mempool.space's block with its fee, coinbase and pool extras (mempool.js getBlock)",
      `/v1/block/${BLOCK_170}`,
    ],
    [
      "esplora.v1.blocks",
      "GET",
      "/v1/blocks[/:height]",
      "mempool.space's fifteen blocks down from the tip or a height, with extras; priced per block",
      "/v1/blocks/0",
    ],
  ] as const
).map(([endpoint, verb, path, summary, example]) => ({ endpoint, verb, path, summary, example }));
