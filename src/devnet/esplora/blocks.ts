import { getDifficulty, toHexReversed } from "../../bitcoin/index.ts";
import type { EsploraRequest } from "../../protocol/esplora/request.ts";
import type { ChainBlock } from "../chain.ts";
import { medianTimePast } from "../chain-facts.ts";
import { badRequest, bytes, type EsploraReply, json, notFound, text } from "./reply.ts";
import { txJson } from "./tx-json.ts";
import { type EsploraView, onBestChain } from "./view.ts";

/** electrs' CHAIN_TXS_PER_PAGE and BLOCK_LIMIT. */
const TXS_PER_PAGE = 25;
const BLOCKS_PER_PAGE = 10;
const NO_BLOCK = "Block not found";

/**
 * electrs' BlockValue, its fields in its order. `mediantime` is Core's median time past where
 * devnet holds the block's ancestors (or Core's value is shipped), else the block's own time.
 */
export function blockJson(view: EsploraView, entry: ChainBlock) {
  const b = entry.block;
  const genesis = entry.height === 0;
  return {
    id: b.hash,
    height: entry.height,
    version: b.version >>> 0,
    timestamp: b.time,
    tx_count: b.transactions.length,
    size: b.size,
    weight: b.weight,
    merkle_root: b.merkleroot,
    previousblockhash: genesis ? null : b.previousblockhash,
    mediantime: medianTimePast(view.chain, entry) ?? b.time,
    nonce: b.nonce,
    bits: Number.parseInt(b.bits, 16),
    difficulty: Math.floor(getDifficulty(Number.parseInt(b.bits, 16))),
  };
}

/**
 * `/blocks[/:start_height]`: ten blocks down from the tip or the height. devnet's mainnet chain
 * is sparse: the list stops at the first block devnet does not hold.
 */
function blockList(view: EsploraView, start: number | undefined): EsploraReply {
  const { chain } = view;
  let entry = start === undefined ? chain.tip : chain.byHeight.get(start);
  if (!entry) return notFound(NO_BLOCK);
  const out = [];
  for (let i = 0; i < BLOCKS_PER_PAGE && entry; i++) {
    out.push(blockJson(view, entry));
    if (entry.height === 0) break;
    const below: ChainBlock | undefined = chain.byHash.get(entry.block.previousblockhash);
    entry = below;
  }
  return json(out);
}

/** `/block/:hash/txs[/:start_index]`: 25 transactions from a multiple of 25. */
function blockTxs(view: EsploraView, entry: ChainBlock, start: number): EsploraReply {
  const txs = entry.block.transactions;
  if (start >= txs.length) return notFound("start index out of range");
  if (start % TXS_PER_PAGE !== 0) {
    return badRequest(`start index must be a multipication of ${TXS_PER_PAGE}`);
  }
  const confirmedIn = onBestChain(view, entry) ? entry : null;
  return json(txs.slice(start, start + TXS_PER_PAGE).map((tx) => txJson(view, tx, confirmedIn)));
}

/** `/block/:hash/status`: whether it is on the best chain, and the next block there. */
function blockStatus(view: EsploraView, entry: ChainBlock | undefined): EsploraReply {
  if (!entry || !onBestChain(view, entry)) {
    return json({ in_best_chain: false, height: null, next_best: null });
  }
  const next = view.chain.byHeight.get(entry.height + 1);
  return json({ in_best_chain: true, height: entry.height, next_best: next?.block.hash ?? null });
}

/** The block endpoints, as electrs answers them from its index. */
export function answerBlocks(view: EsploraView, r: EsploraRequest): EsploraReply | undefined {
  const { chain } = view;
  switch (r.endpoint) {
    case "esplora.blocks.tip.hash":
      return text(chain.tip.block.hash);
    case "esplora.blocks.tip.height":
      return text(String(chain.tip.height));
    case "esplora.blocks":
      return blockList(view, r.number);
    case "esplora.block-height": {
      const entry = chain.byHeight.get(r.number!);
      return entry ? text(entry.block.hash) : notFound(NO_BLOCK);
    }
    case "esplora.block.status":
      return blockStatus(view, chain.byHash.get(r.hash!));
  }
  if (!r.endpoint.startsWith("esplora.block.") && r.endpoint !== "esplora.block") return undefined;
  const entry = chain.byHash.get(r.hash!);
  if (!entry) return notFound(NO_BLOCK);
  const txids = () => entry.block.transactions.map((tx) => tx.txid);
  switch (r.endpoint) {
    case "esplora.block":
      return json(blockJson(view, entry));
    case "esplora.block.header":
      return text(Buffer.from(entry.block.headerBytes).toString("hex"));
    case "esplora.block.raw":
      return bytes(entry.block.bytes);
    case "esplora.block.txids":
      return json(txids());
    case "esplora.block.txid": {
      const tx = entry.block.transactions[r.number!];
      return tx ? text(toHexReversed(tx.txidBytes)) : notFound("tx index out of range");
    }
    case "esplora.block.txs":
      return blockTxs(view, entry, r.number ?? 0);
  }
  return undefined;
}
