import type { BlockHeader } from "../../bitcoin/block.ts";
import { deriveTarget } from "../../bitcoin/pow.ts";
import { adjustmentInterval, type ChainParams } from "./chain-params.ts";
import { type HeaderNode, medianTimePast } from "./header-node.ts";
import { MissingContext, nextWorkRequired } from "./next-work.ts";

/** MAX_FUTURE_BLOCK_TIME (chain.h): two hours. */
const MAX_FUTURE_BLOCK_TIME_S = 2 * 60 * 60;
/** MAX_TIMEWARP (consensus/consensus.h): BIP94's allowance on a period's first block. */
const MAX_TIMEWARP_S = 600;

/**
 * Core's CheckProofOfWork (pow.cpp), as CheckBlockHeader applies it: nBits decodes to a target
 * within powLimit and the hash, read as a number, does not exceed it. Core's reject reason
 * ("high-hash" either way), or null.
 */
export function checkProofOfWork(p: ChainParams, header: BlockHeader): string | null {
  const target = deriveTarget(Number.parseInt(header.bits, 16), p.network);
  return target === undefined || BigInt(`0x${header.hash}`) > target ? "high-hash" : null;
}

/** What the contextual checks read of a header. */
export type HeaderClaims = Pick<BlockHeader, "previousblockhash" | "time" | "bits" | "version">;

/**
 * A header on top of `parent`, checked as Core's AcceptBlockHeader does: its proof of work
 * first (CheckBlockHeader), then the contextual checks. Core's reject reason, or null.
 */
export function checkHeader(
  p: ChainParams,
  parent: HeaderNode,
  header: BlockHeader,
  nowS: number,
): string | null {
  return checkProofOfWork(p, header) ?? checkContext(p, parent, header, nowS);
}

/**
 * Core's ContextualCheckBlockHeader (validation.cpp), with the parent link AcceptBlockHeader
 * looks up: the nBits the retarget rules require, a time after the median of the previous
 * eleven, BIP94's timewarp rule, at most two hours ahead of `nowS`, and the versions BIP34, 66
 * and 65 retired.
 */
export function checkContext(
  p: ChainParams,
  parent: HeaderNode,
  header: HeaderClaims,
  nowS: number,
): string | null {
  if (header.previousblockhash !== parent.hash) return "prev-blk-not-found";
  const height = parent.height + 1;
  let required: number;
  try {
    required = nextWorkRequired(p, parent, header.time);
  } catch (err) {
    if (err instanceof MissingContext) return "bad-diffbits (below the kept headers)";
    throw err;
  }
  if (Number.parseInt(header.bits, 16) !== required) return "bad-diffbits";
  if (header.time <= medianTimePast(parent)) return "time-too-old";
  if (
    p.enforceBip94 &&
    height % adjustmentInterval(p) === 0 &&
    header.time < parent.time - MAX_TIMEWARP_S
  ) {
    return "time-timewarp-attack";
  }
  if (header.time > nowS + MAX_FUTURE_BLOCK_TIME_S) return "time-too-new";
  if (
    (header.version < 2 && height >= p.bip34Height) ||
    (header.version < 3 && height >= p.bip66Height) ||
    (header.version < 4 && height >= p.bip65Height)
  ) {
    return `bad-version(0x${(header.version >>> 0).toString(16).padStart(8, "0")})`;
  }
  return null;
}

/** GetBlockProof: the work a header's target stands for, 2^256 / (target + 1). */
export function blockProof(p: ChainParams, bits: number): bigint {
  const target = deriveTarget(bits, p.network);
  return target === undefined ? 0n : (1n << 256n) / (target + 1n);
}
