import { LosslessNumber } from "lossless-json";
import type { Block } from "./block.ts";
import { DecodeError } from "./errors.ts";
import { toHex } from "./hex.ts";
import type { Network } from "./network.ts";
import { deriveTarget, getDifficulty, uint256Hex } from "./pow.ts";
import { type TxJson, txToUniv } from "./tx-json.ts";
import { univalueDouble } from "./univalue-double.ts";

/**
 * What getblock knows from the chain and the bytes alone cannot tell. Each field given is put in
 * Core's key order; a field left out is left out of the answer.
 */
export interface BlockChainContext {
  confirmations?: number;
  height?: number;
  mediantime?: number;
  /** uint256 hex, 64 digits. */
  chainwork?: string;
  nextblockhash?: string;
}

export interface BlockToUnivOptions {
  network: Network;
  /** getblock's verbosity: 1 lists txids, 2 gives each transaction as TxToUniv (with hex). */
  verbosity: 1 | 2;
  context?: BlockChainContext;
}

/** Core's coinbaseTxToJSON. */
export interface CoinbaseTxJson {
  version: number;
  locktime: number;
  sequence: number;
  coinbase: string;
  witness?: string;
}

/** getblock's object, keys in the order Core's blockheaderToJSON and blockToJSON push them. */
export interface BlockJson {
  hash: string;
  confirmations?: number;
  height?: number;
  version: number;
  versionHex: string;
  merkleroot: string;
  time: number;
  mediantime?: number;
  nonce: number;
  bits: string;
  target: string;
  /** A double, as UniValue prints it (`%.16g`), kept as literal text. */
  difficulty: LosslessNumber;
  chainwork?: string;
  nTx: number;
  previousblockhash?: string;
  nextblockhash?: string;
  strippedsize: number;
  size: number;
  weight: number;
  coinbase_tx: CoinbaseTxJson;
  tx: string[] | TxJson[];
}

const NULL_HASH = "0".repeat(64);

/**
 * Core's blockToJSON (rpc/blockchain.cpp) for getblock verbosity 1 and 2, from the block's bytes
 * plus whatever chain context the caller has. Without undo data a verbosity-2 transaction has no
 * `fee`, as on a pruned node. Throws DecodeError when the header's nBits give no valid target for
 * `network`: Core could not hold such a block, so there is no answer of its to reproduce.
 */
export function blockToUniv(block: Block, opts: BlockToUnivOptions): BlockJson {
  const ctx = opts.context ?? {};
  const bits = Number.parseInt(block.bits, 16);
  const target = deriveTarget(bits, opts.network);
  if (target === undefined) {
    throw new DecodeError(`nBits ${block.bits} encode no valid ${opts.network} target`);
  }
  const coinbase = block.transactions[0];
  if (coinbase === undefined || coinbase.inputs.length === 0) {
    throw new DecodeError("block has no coinbase input");
  }
  const input = coinbase.inputs[0]!;
  // Core prints it when the block index has a parent: every block but a genesis, whose field is
  // all zeros. With a height, that is what decides; without one, the zeros do.
  const hasParent =
    ctx.height !== undefined ? ctx.height > 0 : block.previousblockhash !== NULL_HASH;
  return {
    hash: block.hash,
    ...(ctx.confirmations === undefined ? {} : { confirmations: ctx.confirmations }),
    ...(ctx.height === undefined ? {} : { height: ctx.height }),
    version: block.version,
    versionHex: (block.version >>> 0).toString(16).padStart(8, "0"),
    merkleroot: block.merkleroot,
    time: block.time,
    ...(ctx.mediantime === undefined ? {} : { mediantime: ctx.mediantime }),
    nonce: block.nonce,
    bits: block.bits,
    target: uint256Hex(target),
    difficulty: new LosslessNumber(univalueDouble(getDifficulty(bits))),
    ...(ctx.chainwork === undefined ? {} : { chainwork: ctx.chainwork }),
    nTx: block.transactions.length,
    ...(hasParent ? { previousblockhash: block.previousblockhash } : {}),
    ...(ctx.nextblockhash === undefined ? {} : { nextblockhash: ctx.nextblockhash }),
    strippedsize: block.strippedsize,
    size: block.size,
    weight: block.weight,
    coinbase_tx: {
      version: coinbase.version,
      locktime: coinbase.locktime,
      sequence: input.sequence,
      coinbase: toHex(input.scriptSig),
      // Consensus allows a coinbase witness of exactly one item (the BIP141 reserved value);
      // Core's CHECK_NONFATAL refuses any other stack, which no block in its index can have.
      ...(input.witness.length === 1 ? { witness: toHex(input.witness[0]!) } : {}),
    },
    tx:
      opts.verbosity === 1
        ? block.transactions.map((tx) => tx.txid)
        : block.transactions.map((tx) => txToUniv(tx, { network: opts.network })),
  };
}
