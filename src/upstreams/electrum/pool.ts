import type { ElectrumUpstreamConfig } from "../../config/schema.ts";
import type { GatewayError } from "../../errors/codes.ts";
import type { Json } from "../../jsonrpc/json.ts";
import type { RpcAnswer } from "../../jsonrpc/types.ts";
import { ElectrumUpstream } from "./client.ts";
import type { ElectrumTip } from "./connection.ts";

export type ElectrumPoolOutcome =
  | { ok: true; answer: RpcAnswer; upstream: string }
  | { ok: false; error: GatewayError };

/** How long a server that failed at the transport level is passed over. */
const DOWN_MS = 5_000;

/**
 * Several Electrum servers for one network, as BitcoinCorePool does for nodes: round-robin over
 * the healthy ones; a server that cannot take the request (no connection, connection lost, too
 * busy) is passed over for a while and the request goes to the next. Timeouts are not retried, so
 * a caller waits at most one timeout.
 */
export class ElectrumPool {
  readonly upstreams: ElectrumUpstream[];
  private readonly downUntil: number[];
  private cursor = 0;

  constructor(configs: readonly ElectrumUpstreamConfig[]) {
    this.upstreams = configs.map((c) => new ElectrumUpstream(c));
    this.downUntil = configs.map(() => 0);
  }

  start(): void {
    for (const u of this.upstreams) u.start();
  }

  async request(method: string, params: Json[]): Promise<ElectrumPoolOutcome> {
    const now = Date.now();
    const order = this.upstreams.map((_, i) => (this.cursor + i) % this.upstreams.length);
    this.cursor = (this.cursor + 1) % this.upstreams.length;
    order.sort((a, b) => Number(this.downUntil[a]! > now) - Number(this.downUntil[b]! > now));
    let last: GatewayError | undefined;
    for (const i of order) {
      const upstream = this.upstreams[i]!;
      const out = await upstream.request(method, params);
      if (out.ok) {
        this.downUntil[i] = 0;
        return { ok: true, answer: out.answer, upstream: upstream.name };
      }
      last = out.error;
      if (!out.retryable) return { ok: false, error: out.error };
      this.downUntil[i] = Date.now() + DOWN_MS;
    }
    return { ok: false, error: last! };
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

  close(): void {
    for (const u of this.upstreams) u.close();
  }
}
