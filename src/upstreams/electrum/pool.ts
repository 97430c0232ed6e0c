import type { ElectrumUpstreamConfig } from "../../config/schema.ts";
import type { GatewayError } from "../../errors/codes.ts";
import type { Json } from "../../jsonrpc/json.ts";
import type { RpcAnswer } from "../../jsonrpc/types.ts";
import {
  FailoverPool,
  type HealthOptions,
  type PoolHealth,
  type UpstreamObserver,
} from "../failover.ts";
import { ElectrumUpstream } from "./client.ts";
import type { ElectrumTip } from "./connection.ts";

export type ElectrumPoolOutcome =
  | { ok: true; answer: RpcAnswer; upstream: string }
  | { ok: false; error: GatewayError };

/**
 * Several Electrum servers for one network, with failover (see FailoverPool): a server that
 * cannot take the request (no connection, connection lost, too busy) is passed over for a while
 * and the request goes to the next; timeouts are not retried, so a caller waits at most one.
 */
export class ElectrumPool {
  readonly upstreams: ElectrumUpstream[];
  private readonly pool: FailoverPool<ElectrumUpstream>;

  constructor(configs: readonly ElectrumUpstreamConfig[], observe?: UpstreamObserver) {
    this.upstreams = configs.map((c) => new ElectrumUpstream(c));
    this.pool = new FailoverPool(this.upstreams, observe);
  }

  start(): void {
    for (const u of this.upstreams) u.start();
  }

  request(method: string, params: Json[]): Promise<ElectrumPoolOutcome> {
    return this.pool.run(async (upstream) => {
      const out = await upstream.request(method, params);
      return out.ok ? { ok: true as const, answer: out.answer } : out;
    });
  }

  /** The highest tip any live headers subscription reports, or null when none is live. */
  tip(): ElectrumTip | null {
    let best: ElectrumTip | null = null;
    for (const u of this.upstreams) {
      const tip = u.tip();
      if (tip && (!best || tip.height > best.height)) best = tip;
    }
    return best;
  }

  /** For /readyz: each member up or down (see FailoverPool.health). */
  health(opts: HealthOptions): Promise<PoolHealth> {
    return this.pool.health(opts);
  }

  close(abort = false): Promise<void> {
    return this.pool.close(abort);
  }
}
