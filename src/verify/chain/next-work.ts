import { deriveTarget } from "../../bitcoin/pow.ts";
import { adjustmentInterval, type ChainParams } from "./chain-params.ts";
import { mul256, toCompact } from "./compact.ts";
import { ancestorAt, type HeaderNode } from "./header-node.ts";

/** The retarget needs a header the chain does not keep (below a checkpoint's context). */
export class MissingContext extends Error {}

function compactLimit(p: ChainParams): number {
  return toCompact(p.powLimit);
}

/**
 * Core's GetNextWorkRequired (pow.cpp): the nBits a header on top of `last`, timed `time`,
 * must carry. Between retargets the parent's, save the testnet rule: a header more than twice
 * the spacing after its parent may claim powLimit, and otherwise carries the last bits that
 * were not claimed that way in the period.
 */
export function nextWorkRequired(p: ChainParams, last: HeaderNode, time: number): number {
  const interval = adjustmentInterval(p);
  if ((last.height + 1) % interval !== 0) {
    if (!p.allowMinDifficultyBlocks) return last.bits;
    const limit = compactLimit(p);
    if (time > last.time + p.targetSpacingS * 2) return limit;
    let at: HeaderNode = last;
    while (at.height % interval !== 0 && at.bits === limit) {
      if (!at.prev) throw new MissingContext(`no header below ${at.height}`);
      at = at.prev;
    }
    return at.bits;
  }
  const first = ancestorAt(last, last.height - (interval - 1));
  if (!first) throw new MissingContext(`no header at ${last.height - (interval - 1)}`);
  return calculateNextWorkRequired(p, last, first.time, first.bits);
}

/**
 * Core's CalculateNextWorkRequired: the old target scaled by the period's actual timespan,
 * bounded to a factor of four either way, never easier than powLimit. BIP94 (testnet4) scales
 * the period's first block's target, which the 20-minute rule cannot have lowered.
 */
export function calculateNextWorkRequired(
  p: ChainParams,
  last: { time: number; bits: number },
  firstTime: number,
  firstBits: number,
): number {
  if (p.noRetargeting) return last.bits;
  let timespan = last.time - firstTime;
  timespan = Math.max(timespan, Math.trunc(p.targetTimespanS / 4));
  timespan = Math.min(timespan, p.targetTimespanS * 4);
  const base = deriveTarget(p.enforceBip94 ? firstBits : last.bits, p.network) ?? 0n;
  let target = mul256(base, BigInt(timespan)) / BigInt(p.targetTimespanS);
  if (target > p.powLimit) target = p.powLimit;
  return toCompact(target);
}
