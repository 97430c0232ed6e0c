import type { GatewayError } from "../../errors/codes.ts";
import type { Json } from "../../jsonrpc/json.ts";
import {
  FailoverPool,
  type HealthOptions,
  type PoolHealth,
  type UpstreamObserver,
} from "../failover.ts";
import { IndexerClient, type IndexerUpstreamConfig } from "./client.ts";
import type { GraphRequest } from "./hasura/request.ts";

export type IndexerOutcome =
  | { ok: true; data: { [key: string]: Json }; upstream: string }
  | { ok: false; error: GatewayError };

/**
 * The indexers of one network, with failover (see FailoverPool). Reusable beyond the graph
 * mirror: anything that needs the indexer's data (the unified schema's delegation) asks here.
 */
export class IndexerPool {
  private readonly pool: FailoverPool<IndexerClient>;

  constructor(configs: readonly IndexerUpstreamConfig[], observe?: UpstreamObserver) {
    this.pool = new FailoverPool(
      configs.map((c) => new IndexerClient(c)),
      observe,
    );
  }

  /**
   * One query; `deadline` bounds the whole attempt, failover included; `parse` reads the answer
   * (lossless unless the caller says otherwise: see IndexerClient.query).
   */
  query(
    request: GraphRequest,
    deadline?: AbortSignal,
    parse?: (text: string) => Json,
  ): Promise<IndexerOutcome> {
    return this.pool.run((client) => client.query(request, deadline, parse));
  }

  /** For /readyz: each member up or down (see FailoverPool.health). */
  health(opts: HealthOptions): Promise<PoolHealth> {
    return this.pool.health(opts);
  }

  close(abort = false): Promise<void> {
    return this.pool.close(abort);
  }
}
