import { hash } from "node:crypto";
import { z } from "zod";
import type { NetworkName } from "../config/schema.ts";
import type { Verified } from "../protocol/verified.ts";
import type { ByteLruStats } from "../util/byte-lru.ts";
import { fillConfirmations } from "./answer-template.ts";
import { BlockAnswerCache } from "./block-answers.ts";
import type { BlockRef } from "./chain-guard.ts";
import type { TxStore } from "./tx-store.ts";

/** A line of `extensions.cost.calls` (src/routes/gateway/cost/report.ts): a method's calls, or the indexer's share. */
export interface AnswerCostLine {
  method: string;
  count: number;
  unitPrice?: number;
  subtotal: number;
}

/**
 * A whole answer of the unified API about final blocks or the transactions mined in them
 * (src/routes/gateway/answers/), as it was charged: what serving it again needs besides the caller's own
 * balance.
 */
export interface GatewayAnswer {
  /** `data` as Yoga wrote it. */
  dataText: string;
  /** The estimate reserved, and its complexity (the audit record's until settled). */
  estimated: number;
  estimatedComplexity: number | null;
  /** What the answer was charged: its look-ups at their prices, or the indexer's share. */
  actual: number;
  complexity: number | null;
  /** `extensions.cost.calls`. */
  lines: AnswerCostLine[];
  /**
   * Look-ups it holds (transactions, or indexer answers): the audit record's cache hits when it is
   * served again.
   */
  answered: number;
  /** Yoga's response headers for it, the X-Credits-* ones aside. */
  headers: Record<string, string>;
  /**
   * An answer whose transactions say their confirmations keeps placeholders for them in dataText
   * (answer-template.ts). Given to remember(): the numbers it said, one per placeholder in order;
   * kept: the heights of the blocks they were mined in, from which each hit writes them.
   */
  confirmations?: number[];
  heights?: number[];
  /** How far its answers were verified when it was kept (absent: not at all). */
  verified?: Verified;
}

/**
 * Where a transaction of an answer was mined, as its upstream placed it when answering: the block,
 * and its confirmations then.
 */
export interface MinedAt {
  blockhash: string;
  confirmations: number;
}

/**
 * What an answer is about: its blocks, read from the answer (block answers), or the blocks its
 * transactions were mined in, placed at a height once it is kept (`mined`).
 */
export type AnswerAbout = { blocks: readonly BlockRef[] } | { mined: readonly MinedAt[] };

/**
 * The unified API's finality-aware response cache: whole answers about blocks
 * buried at least cache.minConfirmations deep, or about transactions mined in such blocks, keyed
 * by network, request body and the headers Yoga's answer depends on (src/routes/gateway/answers/serve.ts),
 * within cache.gatewayBytesMax, and in Redis when there is one. An answer is served only while the
 * network's chain guard vouches for each of its blocks on the best chain, and a reorganisation
 * drops every answer about a height it replaced (dropHeight, from the guard).
 */
export class GatewayAnswers {
  private readonly lru: BlockAnswerCache<GatewayAnswer>;
  private readonly keeping = new Set<Promise<void>>();
  /**
   * Keys (their SHA-256) of requests this process executed and did not keep: not looked up in
   * Redis again, so a query that is never final (the tip, an account) pays its round trip once.
   */
  private readonly notKept = new Map<string, true>();

  constructor(
    bytesMax: number,
    private readonly store: TxStore,
  ) {
    this.lru = new BlockAnswerCache(bytesMax);
  }

  get enabled(): boolean {
    return this.lru.bytesMax > 0;
  }

  get stats(): ByteLruStats {
    return this.lru.stats;
  }

  /**
   * The answer kept for this key while its blocks are still on the best chain; else null. Kept by
   * this process, or by another in Redis (REDIS_URL): checked by this process's guard before it is
   * served, as transactions are, and deleted there when one of its blocks left the best chain.
   */
  async get(network: NetworkName, key: string): Promise<GatewayAnswer | null> {
    // The key begins with the network (src/routes/gateway/answers/serve.ts): an entry is this one's.
    const answer = await this.store.answer(network, "gateway", key, this.lru, {
      decode: storedAnswer,
      bytes: (_text, data) => bytesOf(key, data),
      askRedis: () => !this.notKept.has(digest(key)),
    });
    return answer ? this.filled(network, answer) : null;
  }

  /** The answer as of now: its confirmations written in from the guard's tip, if it has any. */
  private async filled(network: NetworkName, answer: GatewayAnswer): Promise<GatewayAnswer | null> {
    if (!answer.heights) return answer;
    const tip = await this.store.guard(network)?.tip();
    if (tip === undefined || tip === null) return null;
    const dataText = fillConfirmations(
      answer.dataText,
      answer.heights.map((h) => tip - h + 1),
    );
    return dataText === null ? null : { ...answer, dataText };
  }

  /** This request was executed and its answer not kept (see notKept). */
  executed(key: string): void {
    if (!this.enabled || !this.store.redis) return;
    if (this.notKept.size >= NOT_KEPT_MAX) {
      const oldest = this.notKept.keys().next();
      if (!oldest.done) this.notKept.delete(oldest.value);
    }
    this.notKept.set(digest(key), true);
  }

  /**
   * Keeps an answer when its blocks are final now (deep enough, on the best chain). The route does
   * not wait for it (the guard may ask the node); idle() does.
   */
  remember(
    network: NetworkName,
    key: string,
    answer: GatewayAnswer,
    about: AnswerAbout,
  ): Promise<void> {
    const keeping = this.keep(network, key, answer, about).finally(() => {
      this.keeping.delete(keeping);
    });
    this.keeping.add(keeping);
    return keeping;
  }

  /** Resolves once every answer being kept now is kept (or found not final): for tests. */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.keeping]);
  }

  private async keep(
    network: NetworkName,
    key: string,
    answer: GatewayAnswer,
    about: AnswerAbout,
  ): Promise<void> {
    if (!this.enabled) return;
    const tip = await this.store.guard(network)?.tip();
    if (tip === undefined || tip === null) return;
    const blocks = "blocks" in about ? about.blocks : placed(tip, about.mined);
    if (!blocks || !(await this.store.final(network, blocks))) return;
    // Confirmations are kept as the heights they count from, against the tip the blocks were
    // placed with: a tip that moved since the answer placed them wrongly, and final() said no.
    const { confirmations, ...rest } = answer;
    const kept: GatewayAnswer = confirmations
      ? { ...rest, heights: confirmations.map((c) => tip - c + 1) }
      : rest;
    this.lru.set(key, { network, data: kept, blocks: [...blocks], bytes: bytesOf(key, kept) });
    this.store.redis?.setAnswer(network, "gateway", key, JSON.stringify(kept), blocks);
  }

  dropHeight(network: NetworkName, height: number): number {
    return this.lru.dropHeight(network, height);
  }
}

/**
 * The blocks transactions were mined in, at the heights their confirmations give against the
 * guard's tip (as the transaction cache places Core's answers: cache/from-core.ts). A height that
 * is off — the tip moved between the answer and now — names a block the node does not have there,
 * so final() refuses it and the answer is simply not kept. null: one block given two heights.
 */
function placed(tip: number, mined: readonly MinedAt[]): BlockRef[] | null {
  const heights = new Map<string, number>();
  for (const { blockhash, confirmations } of mined) {
    const height = tip - confirmations + 1;
    const known = heights.get(blockhash);
    if (known !== undefined && known !== height) return null;
    heights.set(blockhash, height);
  }
  return [...heights].map(([blockhash, height]) => ({ height, blockhash }));
}

/** Keys remembered as executed and not kept (a few hundred kilobytes at most). */
const NOT_KEPT_MAX = 10_000;

const digest = (key: string): string => hash("sha256", key);

function bytesOf(key: string, answer: GatewayAnswer): number {
  return (
    key.length +
    answer.dataText.length +
    JSON.stringify(answer.lines).length +
    JSON.stringify(answer.headers).length
  );
}

/** What another process wrote to Redis, read back only if it is a whole answer. */
const StoredAnswer = z.object({
  dataText: z.string(),
  estimated: z.number().int().nonnegative(),
  estimatedComplexity: z.number().nullable(),
  actual: z.number().int().nonnegative(),
  complexity: z.number().nullable(),
  lines: z.array(
    z.object({
      method: z.string(),
      count: z.number(),
      unitPrice: z.number().optional(),
      subtotal: z.number(),
    }),
  ),
  answered: z.number().int().nonnegative(),
  headers: z.record(z.string(), z.string()),
  heights: z.array(z.number().int().nonnegative()).optional(),
});

function storedAnswer(text: string): GatewayAnswer | null {
  try {
    const parsed = StoredAnswer.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
