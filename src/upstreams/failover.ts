import type { GatewayError } from "../errors/codes.ts";
import { CachedCheck } from "../util/cached-check.ts";

/** One upstream's failure: the pool decides from `retryable` whether to try the next one. */
export type UpstreamFailure = { ok: false; retryable: boolean; error: GatewayError };

export interface Upstream {
  /** `host:port`, never the URL: no user, password, path or query (it shows in /readyz and metrics). */
  readonly name: string;
  /** A cheap call that shows the upstream answers, within `timeoutMs`; false on any failure. */
  probe(timeoutMs: number): Promise<boolean>;
  /** `abort`: requests in flight are dropped rather than waited for (a drain that timed out). */
  close(abort?: boolean): void | Promise<void>;
}

/** One member as /readyz shows it: up when its latest round trip or probe answered. */
export interface MemberHealth {
  name: string;
  status: "up" | "down";
}

/** healthy: every member up; degraded: some; down: none. */
export interface PoolHealth {
  status: "healthy" | "degraded" | "down";
  members: MemberHealth[];
}

export interface HealthOptions {
  timeoutMs: number;
  cacheMs: number;
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
  private readonly members: { client: C; downUntil: number; health: CachedCheck }[];
  private cursor = 0;

  constructor(
    clients: readonly C[],
    private readonly observe: UpstreamObserver = () => {},
  ) {
    this.members = clients.map((client) => {
      const member = {
        client,
        downUntil: 0,
        // A probe counts as a round trip: one that fails passes the member over like a refused
        // call does, one that answers puts it back in the rotation.
        health: new CachedCheck(async (timeoutMs) => {
          const ok = await client.probe(timeoutMs);
          member.downUntil = ok ? 0 : Date.now() + DOWN_MS;
          return ok;
        }),
      };
      return member;
    });
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
        member.health.note(true);
        return { ...out, upstream: member.client.name };
      }
      last = out.error;
      // A timeout or an unreadable answer says nothing about whether the member is reachable.
      if (!out.retryable) return { ok: false, error: out.error };
      member.downUntil = Date.now() + DOWN_MS;
      member.health.note(false);
    }
    return { ok: false, error: last! };
  }

  /**
   * Each member's state from its latest evidence — a call's outcome or a probe — no older than
   * `cacheMs`; a member with none that fresh is probed (at most one probe each at a time).
   */
  async health(opts: HealthOptions): Promise<PoolHealth> {
    const members = await Promise.all(
      this.members.map(async (m) => ({
        name: m.client.name,
        status: (await m.health.get(opts.timeoutMs, opts.cacheMs))
          ? ("up" as const)
          : ("down" as const),
      })),
    );
    const up = members.filter((m) => m.status === "up").length;
    const status = up === members.length ? "healthy" : up > 0 ? "degraded" : "down";
    return { status, members };
  }

  async close(abort = false): Promise<void> {
    await Promise.all(this.members.map((m) => m.client.close(abort)));
  }
}
