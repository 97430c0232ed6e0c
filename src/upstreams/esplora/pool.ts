import type { CancelSignal } from "../../util/cancel.ts";
import { withDeadline } from "../deadline.ts";
import {
  type FailoverPolicy,
  FailoverPool,
  type HealthOptions,
  type PoolFailure,
  type PoolHealth,
  type PoolObserver,
} from "../failover.ts";
import { SharedTrips } from "../shared-trips.ts";
import { EsploraAnswerCache, isKeptPath } from "./answer-cache.ts";
import { esploraAnswerCheck } from "./answer-check.ts";
import {
  type EsploraAnswer,
  type EsploraCall,
  EsploraClient,
  type EsploraUpstreamConfig,
} from "./client.ts";

export type EsploraOutcome = (EsploraAnswer & { upstream: string }) | PoolFailure;

export interface EsploraPoolOptions {
  policy?: FailoverPolicy | undefined;
  observer?: PoolObserver | undefined;
  onShared?: (() => void) | undefined;
  /** One answer, at most (server.responseBytesMax). */
  responseBytesMax?: number | undefined;
  /** Bytes of content-addressed block answers kept (cache.esploraBytesMax); 0 or absent: none. */
  answersBytesMax?: number | undefined;
  /** Each look-up of a kept path: found or not. */
  onLookup?: ((hit: boolean) => void) | undefined;
}

/**
 * The Esplora servers of one network, with failover (see FailoverPool). Reads may be retried on
 * another server and hedged, and identical reads in flight share one trip; a broadcast (POST
 * /tx) is sent once, to one server.
 */
export class EsploraPool {
  private readonly pool: FailoverPool<EsploraClient>;
  /** Identical reads in flight share one trip (../shared-trips.ts). */
  readonly shared: SharedTrips<EsploraOutcome>;
  private readonly budgetMs: number;
  /** Answers a block's hash fixes for good (./answer-cache.ts). */
  readonly answers: EsploraAnswerCache;
  private readonly onLookup: (hit: boolean) => void;

  constructor(configs: readonly EsploraUpstreamConfig[], opts: EsploraPoolOptions = {}) {
    this.budgetMs = Math.max(...configs.map((c) => c.timeoutMs));
    this.answers = new EsploraAnswerCache(opts.answersBytesMax ?? 0);
    this.onLookup = opts.onLookup ?? (() => {});
    this.pool = new FailoverPool(
      configs.map((c) => new EsploraClient(c, opts.responseBytesMax)),
      {
        policy: opts.policy,
        observer: opts.observer,
        budgetMs: this.budgetMs,
        what: "the Esplora server",
      },
    );
    this.shared = new SharedTrips(opts.onShared);
  }

  /**
   * One request, within the pool's budget (the longest of its servers' timeouts). A read of a
   * kept path is answered from the cache when it can be (`upstream: "cache"`).
   */
  async request(call: EsploraCall): Promise<EsploraOutcome> {
    if (call.method === "POST") return this.trip(call, false);
    const kept = this.answers.bytesMax > 0 && isKeptPath(call.path);
    if (kept) {
      const hit = this.answers.get(call.path);
      this.onLookup(hit !== undefined);
      if (hit) return { ...hit, upstream: "cache" };
    }
    const out = await this.shared.run(call.path, () => this.trip(call, true));
    if (kept && out.ok) this.answers.offer(call.path, out);
    return out;
  }

  private trip(call: EsploraCall, idempotent: boolean): Promise<EsploraOutcome> {
    return withDeadline(this.budgetMs, (signal: CancelSignal) =>
      this.pool.run((client, attempt) => client.request(call, attempt), {
        idempotent,
        signal,
        check: idempotent ? esploraAnswerCheck(call.path) : undefined,
      }),
    );
  }

  /** For /readyz: each member up or down (see FailoverPool.health). */
  health(opts: HealthOptions): Promise<PoolHealth> {
    return this.pool.health(opts);
  }

  close(abort = false): Promise<void> {
    return this.pool.close(abort);
  }
}
