// FailoverPool's rules (src/upstreams/failover.ts) on upstreams written here, whose answers the
// test decides: reads are hedged and retried, calls with effects are not, an open breaker passes
// its upstream over, and no upstream admitting a call fails at once. The pool itself is the real one.
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/load.ts";
import { gatewayError } from "../../src/protocol/errors/codes.ts";
import {
  DEFAULT_POLICY,
  type FailoverPolicy,
  FailoverPool,
  type Upstream,
  type UpstreamFailure,
} from "../../src/upstreams/failover.ts";
import type { CancelSignal } from "../../src/util/cancel.ts";

type Answer = { ok: true; from: string };

/** An upstream that answers at once, refuses at once, or never answers (frozen). */
class TestUpstream implements Upstream {
  calls = 0;
  constructor(
    readonly name: string,
    public mode: "answer" | "refuse" | "frozen",
  ) {}
  call(signal: CancelSignal): Promise<Answer | UpstreamFailure> {
    this.calls += 1;
    if (this.mode === "answer") return Promise.resolve({ ok: true, from: this.name });
    if (this.mode === "refuse") {
      return Promise.resolve({
        ok: false,
        retryable: true,
        error: gatewayError("UPSTREAM_UNAVAILABLE", "refused"),
      });
    }
    // Frozen: nothing comes back; the pool's deadline (or its hedge) ends the wait.
    return new Promise((resolve) =>
      signal.addEventListener("abort", () =>
        resolve({
          ok: false,
          retryable: false,
          error: gatewayError("UPSTREAM_TIMEOUT", "aborted"),
        }),
      ),
    );
  }
  probe(): Promise<boolean> {
    return Promise.resolve(this.mode === "answer");
  }
  close(): void {}
}

function pool(members: TestUpstream[], over: Partial<FailoverPolicy> = {}) {
  const events: string[] = [];
  const p = new FailoverPool(members, {
    policy: { ...DEFAULT_POLICY, attemptTimeoutMs: 1_000, healthCheckIntervalMs: 0, ...over },
    observer: {
      attempt: (u, outcome) => events.push(`${u} ${outcome}`),
      retried: (u) => events.push(`retry ${u}`),
      hedged: (u) => events.push(`hedge ${u}`),
      breaker: (u, s) => events.push(`${u} ${s}`),
    },
    budgetMs: 2_000,
    what: "the test upstream",
  });
  return { p, events };
}

describe("FailoverPool", () => {
  it("DEFAULT_POLICY (pools built outside a gateway) is the config's defaults for the node", () => {
    const { failover } = parseConfig({});
    expect(DEFAULT_POLICY).toEqual({
      ...failover,
      attemptTimeoutMs: failover.attemptTimeoutMs.node,
    });
  });

  it("a read to a frozen upstream is hedged to the other after the hedge delay, not its timeout", async () => {
    const a = new TestUpstream("a", "frozen");
    const b = new TestUpstream("b", "answer");
    const { p, events } = pool([a, b], {
      hedge: { enabled: true, quantile: 0.95, minMs: 10, maxMs: 50 },
    });
    const started = performance.now();
    const out = await p.run((u, signal) => u.call(signal), { idempotent: true });
    expect(out).toMatchObject({ ok: true, from: "b", upstream: "b" });
    expect(performance.now() - started).toBeLessThan(900);
    expect(events).toContain("hedge b");
    // The frozen attempt was outpaced: that counts against a, and a few such calls open it.
    expect(events).toContain("a outpaced");
    for (let i = 0; i < 10; i++) await p.run((u, signal) => u.call(signal), { idempotent: true });
    expect(p.breakers()).toEqual([
      { name: "a", state: "open" },
      { name: "b", state: "closed" },
    ]);
    const before = a.calls;
    await p.run((u, signal) => u.call(signal), { idempotent: true });
    expect(a.calls).toBe(before); // passed over while open
    await p.close();
  });

  it("a read that times out goes to the other upstream within the budget", async () => {
    const a = new TestUpstream("a", "frozen");
    const b = new TestUpstream("b", "answer");
    const { p, events } = pool([a, b], { hedge: { ...DEFAULT_POLICY.hedge, enabled: false } });
    const out = await p.run((u, signal) => u.call(signal), { idempotent: true });
    expect(out).toMatchObject({ ok: true, upstream: "b" });
    expect(events).toEqual(["a closed", "b closed", "a timeout", "retry b", "b ok"]);
    await p.close();
  });

  it("a call with effects is neither hedged nor retried after a timeout: it may have run", async () => {
    const a = new TestUpstream("a", "frozen");
    const b = new TestUpstream("b", "answer");
    const { p } = pool([a, b], { hedge: { enabled: true, quantile: 0.95, minMs: 10, maxMs: 10 } });
    const out = await p.run((u, signal) => u.call(signal));
    expect(out).toMatchObject({ ok: false, error: { code: "UPSTREAM_TIMEOUT" } });
    expect(b.calls).toBe(0);
    await p.close();
  }, 10_000);

  it("a call with effects refused by one upstream goes to the next (it cannot have run)", async () => {
    const a = new TestUpstream("a", "refuse");
    const b = new TestUpstream("b", "answer");
    const { p } = pool([a, b]);
    expect(await p.run((u, signal) => u.call(signal))).toMatchObject({ ok: true, upstream: "b" });
    await p.close();
  });

  it("every breaker open: UPSTREAM_UNAVAILABLE at once, no upstream asked", async () => {
    const a = new TestUpstream("a", "refuse");
    const b = new TestUpstream("b", "refuse");
    const { p } = pool([a, b]);
    for (let i = 0; i < 5; i++) {
      expect(await p.run((u, signal) => u.call(signal), { idempotent: true })).toMatchObject({
        ok: false,
        error: { code: "UPSTREAM_UNAVAILABLE" },
      });
    }
    const asked = a.calls + b.calls;
    const out = await p.run((u, signal) => u.call(signal), { idempotent: true });
    expect(out).toMatchObject({ ok: false, error: { code: "UPSTREAM_UNAVAILABLE" } });
    expect(a.calls + b.calls).toBe(asked);
    // The upstreams are back: a probe closes their breakers before the cool-down ends.
    a.mode = "answer";
    b.mode = "answer";
    await p.health({ timeoutMs: 1_000, cacheMs: 0 });
    expect(p.breakers().map((x) => x.state)).toEqual(["closed", "closed"]);
    await p.close();
  });
});
