import type { BitcoinCoreUpstreamConfig } from "../../config/schema.ts";
import type { GatewayError } from "../../errors/codes.ts";
import type { RpcAnswer, RpcCall } from "../../jsonrpc/types.ts";
import {
  FailoverPool,
  type HealthOptions,
  type PoolHealth,
  type UpstreamObserver,
} from "../failover.ts";
import { BitcoinCoreClient } from "./client.ts";

export type PoolOutcome =
  | { ok: true; answers: RpcAnswer[]; upstream: string }
  | { ok: false; error: GatewayError };

/** The full nodes of one network, with failover (see FailoverPool). */
export class BitcoinCorePool {
  private readonly pool: FailoverPool<BitcoinCoreClient>;

  constructor(configs: readonly BitcoinCoreUpstreamConfig[], observe?: UpstreamObserver) {
    this.pool = new FailoverPool(
      configs.map((c) => new BitcoinCoreClient(c)),
      observe,
    );
  }

  batch(calls: readonly RpcCall[]): Promise<PoolOutcome> {
    return this.pool.run((client) => client.batch(calls));
  }

  /** For /readyz: each member up or down (see FailoverPool.health). */
  health(opts: HealthOptions): Promise<PoolHealth> {
    return this.pool.health(opts);
  }

  close(abort = false): Promise<void> {
    return this.pool.close(abort);
  }
}
