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

  constructor(configs: readonly EsploraUpstreamConfig[], opts: EsploraPoolOptions = {}) {
    this.budgetMs = Math.max(...configs.map((c) => c.timeoutMs));
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

  /** One request, within the pool's budget (the longest of its servers' timeouts). */
  request(call: EsploraCall): Promise<EsploraOutcome> {
    const read = call.method === "GET";
    const trip = () =>
      withDeadline(this.budgetMs, (signal: CancelSignal) =>
        this.pool.run((client, attempt) => client.request(call, attempt), {
          idempotent: read,
          signal,
        }),
      );
    return read ? this.shared.run(call.path, trip) : trip();
  }

  /** For /readyz: each member up or down (see FailoverPool.health). */
  health(opts: HealthOptions): Promise<PoolHealth> {
    return this.pool.health(opts);
  }

  close(abort = false): Promise<void> {
    return this.pool.close(abort);
  }
}
