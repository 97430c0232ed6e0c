import type { GatewayError } from "../errors/codes.ts";

/** One upstream's failure: the pool decides from `retryable` whether to try the next one. */
export type UpstreamFailure = { ok: false; retryable: boolean; error: GatewayError };

export interface Upstream {
  readonly name: string;
  close(): void | Promise<void>;
}

/** Told of every round trip: which upstream, whether it answered, how long it took. */
export type UpstreamObserver = (upstream: string, ok: boolean, seconds: number) => void;

/** How long an upstream that failed at the transport level is passed over. */
const DOWN_MS = 5_000;

/**
 * Several upstreams for one network: round-robin over the healthy ones; one that refuses or drops
 * the connection is marked down for a while and the call goes to the next. Timeouts are not
 * retried: the client's wait is bounded by one timeout, not one per upstream.
 */
export class FailoverPool<C extends Upstream> {
  private readonly members: { client: C; downUntil: number }[];
  private cursor = 0;

  constructor(
    clients: readonly C[],
    private readonly observe: UpstreamObserver = () => {},
  ) {
    this.members = clients.map((client) => ({ client, downUntil: 0 }));
  }

  async run<T extends { ok: true }>(
    call: (client: C) => Promise<T | UpstreamFailure>,
  ): Promise<(T & { upstream: string }) | { ok: false; error: GatewayError }> {
    const now = Date.now();
    const order = this.members.map(
      (_, i) => this.members[(this.cursor + i) % this.members.length]!,
    );
    this.cursor = (this.cursor + 1) % this.members.length;
    // Healthy upstreams first; down ones are still tried last rather than failing outright.
    order.sort((a, b) => Number(a.downUntil > now) - Number(b.downUntil > now));
    let last: GatewayError | undefined;
    for (const member of order) {
      const started = performance.now();
      const out = await call(member.client);
      this.observe(member.client.name, out.ok, (performance.now() - started) / 1000);
      if (out.ok) {
        member.downUntil = 0;
        return { ...out, upstream: member.client.name };
      }
      last = out.error;
      if (!out.retryable) return { ok: false, error: out.error };
      member.downUntil = Date.now() + DOWN_MS;
    }
    return { ok: false, error: last! };
  }

  async close(): Promise<void> {
    await Promise.all(this.members.map((m) => m.client.close()));
  }
}
