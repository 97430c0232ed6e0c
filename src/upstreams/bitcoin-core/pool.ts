import type { BitcoinCoreUpstreamConfig } from "../../config/schema.ts";
import type { GatewayError } from "../../errors/codes.ts";
import type { RpcAnswer, RpcCall } from "../../jsonrpc/types.ts";
import { BitcoinCoreClient } from "./client.ts";

export type PoolOutcome =
  | { ok: true; answers: RpcAnswer[]; upstream: string }
  | { ok: false; error: GatewayError };

/** How long a node that failed at the transport level is passed over. */
const DOWN_MS = 5_000;

/**
 * Several nodes for one network: round-robin over the healthy ones; a node that refuses or drops
 * the connection is marked down for a while and the call goes to the next. Timeouts are not
 * retried: the client's wait is bounded by one timeout, not one per node.
 */
export class BitcoinCorePool {
  private readonly nodes: { client: BitcoinCoreClient; downUntil: number }[];
  private cursor = 0;

  constructor(configs: readonly BitcoinCoreUpstreamConfig[]) {
    this.nodes = configs.map((c) => ({ client: new BitcoinCoreClient(c), downUntil: 0 }));
  }

  async batch(calls: readonly RpcCall[]): Promise<PoolOutcome> {
    const now = Date.now();
    const order = this.nodes.map((_, i) => this.nodes[(this.cursor + i) % this.nodes.length]!);
    this.cursor = (this.cursor + 1) % this.nodes.length;
    // Healthy nodes first; down ones are still tried last rather than failing outright.
    order.sort((a, b) => Number(a.downUntil > now) - Number(b.downUntil > now));
    let last: GatewayError | undefined;
    for (const node of order) {
      const out = await node.client.batch(calls);
      if (out.ok) {
        node.downUntil = 0;
        return { ok: true, answers: out.answers, upstream: node.client.name };
      }
      last = out.error;
      if (!out.retryable) return { ok: false, error: out.error };
      node.downUntil = Date.now() + DOWN_MS;
    }
    return { ok: false, error: last! };
  }

  async close(): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.client.close()));
  }
}
