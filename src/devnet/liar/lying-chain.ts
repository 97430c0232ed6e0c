import { parseBlockHeader } from "../../bitcoin/block.ts";
import { grindNonce } from "../../bitcoin/block-build.ts";
import { sha256d } from "../../bitcoin/hash.ts";
import { type HeaderFields, serializeHeader } from "../../bitcoin/header-bytes.ts";
import { toHexReversed } from "../../bitcoin/hex.ts";
import { deriveTarget } from "../../bitcoin/pow.ts";
import type { DevnetChain } from "../chain.ts";
import { medianTimePast } from "../chain-facts.ts";
import type { LiarOptions } from "./options.ts";

/** A header as the liar serves it. */
export interface ServedHeader {
  height: number;
  hash: string;
  bytes: Uint8Array;
  /** The real block's hash it stands for (the same when the header is not a lie). */
  honestHash: string;
}

/** Nonces tried when grinding a lying header's proof of work (regtest needs about two). */
const GRIND_TRIES = 100_000;
/** Lying headers remembered (each is ground once). */
const FORGED_MAX = 1_000;

/**
 * The chain as a liar tells it, read from devnet's chain it fronts: shorter by `shorterBy`, and
 * with invalid headers from `invalidHeaders.fromHeight` up (each naming the lying one below it as
 * its parent). Computed afresh at each question: the chain moves under it.
 */
export class LyingChain {
  private readonly forged = new Map<string, ServedHeader>();

  constructor(
    private readonly chain: DevnetChain,
    private readonly options: () => LiarOptions,
  ) {}

  tipHeight(): number {
    return Math.max(0, this.chain.tip.height - (this.options().shorterBy ?? 0));
  }

  /** The header served at `height`, or undefined above the served tip or where devnet has none. */
  at(height: number): ServedHeader | undefined {
    if (height > this.tipHeight()) return undefined;
    const entry = this.chain.byHeight.get(height);
    if (!entry) return undefined;
    const honest = {
      height,
      hash: entry.block.hash,
      bytes: entry.block.headerBytes,
      honestHash: entry.block.hash,
    };
    const lie = this.options().invalidHeaders;
    const from = lie?.fromHeight ?? this.tipHeight();
    if (!lie || height < from) return honest;
    const parent = this.at(height - 1);
    return this.forge(honest, parent, lie.kind);
  }

  /** The header served with this hash: an honest one at or below the served tip, or a lying one. */
  byHash(hash: string): ServedHeader | undefined {
    const entry = this.chain.byHash.get(hash);
    if (entry && this.chain.byHeight.get(entry.height) === entry) {
      const served = this.at(entry.height);
      if (served?.hash === hash) return served;
    }
    const lie = this.options().invalidHeaders;
    if (!lie) return undefined;
    for (let h = lie.fromHeight ?? this.tipHeight(); h <= this.tipHeight(); h++) {
      const served = this.at(h);
      if (served?.hash === hash) return served;
    }
    return undefined;
  }

  private forge(
    honest: ServedHeader,
    parent: ServedHeader | undefined,
    kind: "bits" | "time" | "pow",
  ): ServedHeader {
    const key = `${honest.honestHash} ${parent?.hash} ${kind}`;
    const known = this.forged.get(key);
    if (known) return known;
    const h = parseBlockHeader(honest.bytes);
    const fields: HeaderFields = {
      version: h.version,
      previousblockhash: parent?.hash ?? h.previousblockhash,
      merkleroot: h.merkleroot,
      time: h.time,
      bits: Number.parseInt(h.bits, 16),
      nonce: h.nonce,
    };
    const below = this.chain.byHash.get(h.previousblockhash);
    if (kind === "bits") fields.bits = (fields.bits ^ 1) >>> 0;
    if (kind === "time") fields.time = (below && medianTimePast(this.chain, below)) ?? fields.time;
    const target = deriveTarget(fields.bits, this.chain.network);
    fields.nonce = grind(fields, target, kind === "pow") ?? fields.nonce;
    const bytes = serializeHeader(fields);
    const hash = toHexReversed(sha256d(bytes));
    const forged = { height: honest.height, hash, bytes, honestHash: honest.honestHash };
    if (this.forged.size >= FORGED_MAX) this.forged.clear();
    this.forged.set(key, forged);
    return forged;
  }
}

/** A nonce meeting the target (or, `miss`, missing it); undefined when none is found in time. */
function grind(f: HeaderFields, target: bigint | undefined, miss: boolean): number | undefined {
  if (target === undefined) return undefined;
  if (!miss) return target >= 1n << 250n ? grindNonce(f, target, GRIND_TRIES) : undefined;
  for (let nonce = 0; nonce < GRIND_TRIES; nonce++) {
    const hash = BigInt(`0x${toHexReversed(sha256d(serializeHeader({ ...f, nonce })))}`);
    if (hash > target) return nonce;
  }
  return undefined;
}
