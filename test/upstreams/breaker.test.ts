// The circuit breaker's states (src/upstreams/breaker.ts), on a clock the test moves.
import { describe, expect, it } from "vitest";
import { Breaker, type BreakerState } from "../../src/upstreams/breaker.ts";

function breaker(over: Partial<ConstructorParameters<typeof Breaker>[0]> = {}) {
  let now = 1_000;
  const changes: BreakerState[] = [];
  const b = new Breaker(
    { failuresMax: 3, failureRate: 0.5, windowCalls: 10, openMs: 5_000, ...over },
    (s) => changes.push(s),
    () => now,
  );
  const advance = (ms: number) => {
    now += ms;
  };
  return { b, changes, advance };
}

describe("circuit breaker", () => {
  it("opens after failuresMax consecutive failures; a success in between resets the count", () => {
    const { b, changes } = breaker();
    b.failure();
    b.failure();
    b.success();
    b.failure();
    b.failure();
    expect(b.state).toBe("closed");
    b.failure();
    expect(b.state).toBe("open");
    expect(b.admit()).toBeNull();
    expect(changes).toEqual(["open"]);
  });

  it("opens on a failure that brings the window's failure rate to failureRate, once it is full", () => {
    const { b } = breaker({ failuresMax: 100, windowCalls: 4, failureRate: 0.5 });
    b.failure();
    b.success();
    b.failure();
    expect(b.state).toBe("closed"); // 2 of 3 outcomes: the window is not full
    b.success();
    b.success();
    expect(b.state).toBe("closed"); // 1 of the last 4
    b.failure();
    expect(b.state).toBe("open"); // 2 of the last 4
  });

  it("half-open after openMs lets exactly one trial through; its success closes it", () => {
    const { b, advance, changes } = breaker();
    for (let i = 0; i < 3; i++) b.failure();
    advance(4_999);
    expect(b.available).toBe(false);
    advance(1);
    expect(b.state).toBe("half-open");
    expect(b.admit()).toBe("trial");
    expect(b.admit()).toBeNull();
    b.success();
    expect(b.state).toBe("closed");
    expect(b.admit()).toBe("call");
    expect(changes).toEqual(["open", "half-open", "closed"]);
  });

  it("a failed trial opens it for another openMs; a cancelled trial frees the slot", () => {
    const { b, advance } = breaker();
    for (let i = 0; i < 3; i++) b.failure();
    advance(5_000);
    expect(b.admit()).toBe("trial");
    b.neutral("trial");
    expect(b.admit()).toBe("trial");
    b.failure();
    expect(b.state).toBe("open");
    advance(4_999);
    expect(b.state).toBe("open");
  });

  it("a probe that answers closes it at once; one that does not keeps it open", () => {
    const { b, advance } = breaker();
    for (let i = 0; i < 3; i++) b.failure();
    b.probed(false);
    advance(4_999);
    expect(b.state).toBe("open");
    b.probed(true);
    expect(b.state).toBe("closed");
  });

  it("held open for disagreeing with the verified chain: calls, probes and time do not close it; release does", () => {
    const { b, changes, advance } = breaker();
    b.hold("its chain has less work");
    expect(b.state).toBe("open");
    expect(b.held).toBe("its chain has less work");
    b.probed(true);
    b.success();
    advance(60_000);
    expect(b.state).toBe("open");
    expect(b.admit()).toBeNull();
    expect(b.available).toBe(false);
    b.release();
    expect(b.held).toBeNull();
    expect(b.state).toBe("closed");
    expect(b.admit()).toBe("call");
    expect(changes).toEqual(["open", "closed"]);
  });
});
