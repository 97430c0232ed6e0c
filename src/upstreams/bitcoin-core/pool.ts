import type { BitcoinCoreUpstreamConfig } from "../../config/schema.ts";
import type { RpcCall } from "../../jsonrpc/types.ts";
import {
  FailoverPool,
  type HealthOptions,
  type PoolHealth,
  type UpstreamObserver,
} from "../failover.ts";
import { BitcoinCoreClient } from "./client.ts";
import { Coalescer, type PoolOutcome } from "./coalesce.ts";

export type { PoolOutcome } from "./coalesce.ts";

/** Told of each JSON-RPC batch that combined several requests' calls (for metrics). */
export type CombinedObserver = (requests: number, calls: number) => void;

/**
 * The full nodes of one network: concurrent requests' calls combined into JSON-RPC batches
 * (coalesce.ts), each batch sent with failover (see FailoverPool).
 */
export class BitcoinCorePool {
  private readonly pool: FailoverPool<BitcoinCoreClient>;
  private readonly coalescer: Coalescer;

  constructor(
    configs: readonly BitcoinCoreUpstreamConfig[],
    observe?: UpstreamObserver,
    onCombined?: CombinedObserver,
  ) {
    this.pool = new FailoverPool(
      configs.map((c) => new BitcoinCoreClient(c)),
      observe,
    );
    // Combining comes before failover, so a combined batch may go to any member: it is sized for
    // the strictest one, and a member with combining off (0) turns it off for the network.
    const callsMax = Math.min(...configs.map((c) => c.coalesceCallsMax));
    this.coalescer = new Coalescer(
      (calls, requests) => this.pool.run((client) => client.batch(calls, undefined, requests)),
      callsMax,
      onCombined,
    );
  }

  /** A request's calls, answered in its order (one round trip, perhaps shared with others). */
  batch(calls: readonly RpcCall[]): Promise<PoolOutcome> {
    return this.coalescer.submit(calls);
  }

  /** For /readyz: each member up or down (see FailoverPool.health). */
  health(opts: HealthOptions): Promise<PoolHealth> {
    return this.pool.health(opts);
  }

  close(abort = false): Promise<void> {
    // Calls waiting for the end of the turn are sent before the connections close, not stranded.
    this.coalescer.flush();
    return this.pool.close(abort);
  }
}
