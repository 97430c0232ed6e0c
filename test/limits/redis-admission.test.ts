// The admission script counts the calls of one turn together, each key read once: every call's
// verdict, and every counter Redis holds after, must be what one script per call makes. The same
// calls go through two admissions on the real Redis, under two key prefixes: together (one
// script, or one send while another waits for Redis), and one at a time (a script each).
import { randomBytes } from "node:crypto";
import fc from "fast-check";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CapCounter } from "../../src/limits/cap-counters.ts";
import {
  type AdmissionShape,
  type Counted,
  RedisAdmission,
  type ScopeCount,
} from "../../src/limits/redis-admission.ts";
import { rateKeyPrefix, reserveKeyPrefix } from "../../src/limits/request-rates.ts";
import { startHeldRelay } from "../support/held-relay.ts";
import { REDIS_URL } from "../support/redis-pair.ts";
import { sized } from "../support/size.ts";

const LEASE_MS = 30_000;
const BURST_WINDOW_S = 60;

/** One call's limits: its token's and account's rates, its account's slots, its caps. */
interface Call {
  account: number;
  token: string;
  caps: number;
}

const scopes = (c: Call): ScopeCount[] => [
  { name: "plan:token", key: c.token, requestsPerSecond: 5, burst: 3 },
  { name: "plan:account", key: String(c.account), requestsPerSecond: 9, burst: 0 },
];
const capCounters = (c: Call): CapCounter[] => [
  { key: `cap:day:1000:${c.account}:0`, cap: 1_000, seconds: 600 },
  { key: `cap:cycle:700:${c.account}:0`, cap: 700, seconds: 600 },
];

/**
 * Twelve calls on two tokens of one account (four of the first in a row, then the two in turn,
 * then three of the second in a row), then four on another account's token: runs of one token's
 * calls go to the script as one group, and other runs share their account's keys.
 */
const CALLS: Call[] = [
  ...["t0", "t0", "t0", "t0", "t1", "t0", "t1", "t0", "t1", "t1", "t1", "t1"].map((token) => ({
    account: 1,
    token,
    caps: 100,
  })),
  ...Array.from({ length: 4 }, () => ({ account: 2, token: "u", caps: 250 })),
];

/** A verdict without what depends on the clock (times to live) or on chance (slot members). */
const verdict = (c: Counted | null) =>
  c && {
    readings: c.readings.map((r) => ({
      rate: r.rate.consumed,
      reserve: r.reserve?.consumed ?? null,
      reserveTaken: r.reserveTaken,
    })),
    slot: c.slot?.inFlight ?? null,
    asked: c.asked,
    capsTaken: c.capsTaken,
  };

describe("the admission script: one script for a turn's calls", () => {
  let redis: Redis;
  const prefixes: string[] = [];

  beforeAll(() => {
    redis = new Redis(REDIS_URL);
  });
  afterAll(async () => {
    for (const prefix of prefixes) {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
    }
    redis.disconnect();
  });

  /** An admission under a prefix of its own, its cap counters started at nothing spent. */
  const admission = async (client = redis, calls = CALLS) => {
    const prefix = `blockgate-test-admit-${randomBytes(6).toString("hex")}:`;
    prefixes.push(prefix);
    for (const c of calls) {
      for (const counter of capCounters(c))
        await redis.set(`${prefix}${counter.key}`, 0, "EX", 600);
    }
    return { prefix, admit: new RedisAdmission(client, prefix, BURST_WINDOW_S, LEASE_MS) };
  };
  /** Each token's shape, made once per admission, as Limits keeps them. */
  const shapes = new Map<RedisAdmission, Map<string, AdmissionShape>>();
  const count = (admit: RedisAdmission, c: Call) => {
    const mine = shapes.get(admit) ?? new Map<string, AdmissionShape>();
    shapes.set(admit, mine);
    let shape = mine.get(c.token);
    if (!shape) {
      shape = admit.shape(scopes(c), { key: String(c.account), max: 6 }, capCounters(c));
      mine.set(c.token, shape);
    }
    return admit.countShaped(shape, c.caps);
  };

  /**
   * What Redis holds under `prefix` for every key the calls touched, read in one transaction and
   * right after the run it checks: a rate's counter lasts a second, and a slower read could see it
   * gone between its value and its time to live, or gone in one run's keys and not the other's.
   */
  const heldIn = async (prefix: string, calls = CALLS) => {
    const reads: { label: string; key: string; ttl: boolean; set?: boolean }[] = [];
    for (const c of calls) {
      for (const s of scopes(c)) {
        for (const name of [rateKeyPrefix(s.name), reserveKeyPrefix(s.name)]) {
          reads.push({ label: `${name}:${s.key}`, key: `${prefix}${name}:${s.key}`, ttl: true });
        }
      }
      for (const counter of capCounters(c)) {
        reads.push({ label: counter.key, key: `${prefix}${counter.key}`, ttl: false });
      }
      const slots = `slots:${c.account}`;
      reads.push({ label: slots, key: `${prefix}${slots}`, ttl: true, set: true });
    }
    const multi = redis.multi();
    for (const r of reads) (r.set ? multi.zcard(r.key) : multi.get(r.key)).pttl(r.key);
    const answers = ((await multi.exec()) ?? []).map(([err, value]) => {
      if (err) throw err;
      return value as string | number | null;
    });
    const out: Record<string, number | null> = {};
    for (const [i, r] of reads.entries()) {
      const [value, ttl] = [answers[2 * i], answers[2 * i + 1]];
      out[r.label] = value === null && !r.set && r.ttl ? null : Number(value);
      if (r.ttl && value !== null) expect(ttl).toBeGreaterThan(0);
    }
    return out;
  };

  it("gives every call the verdict, and Redis the counts, one script per call would", async () => {
    const together = await admission();
    const alone = await admission();
    // Asked in one turn: one script.
    const asTurn = await Promise.all(CALLS.map((c) => count(together.admit, c)));
    const heldTogether = await heldIn(together.prefix);
    const oneByOne: (Counted | null)[] = [];
    for (const c of CALLS) oneByOne.push(await count(alone.admit, c));
    const heldAlone = await heldIn(alone.prefix);

    expect(asTurn.every((c) => c !== null)).toBe(true);
    expect(asTurn.map(verdict)).toEqual(oneByOne.map(verdict));
    // The limits were reached on the way: rates past their burst, slots at their maximum, caps.
    const verdicts = asTurn.map(verdict);
    expect(verdicts.some((v) => v?.readings[0]?.reserveTaken)).toBe(true);
    expect(verdicts.some((v) => v?.asked && v.slot === null)).toBe(true);
    expect(verdicts.some((v) => v?.slot !== null && !v?.capsTaken)).toBe(true);
    expect(verdicts.filter((v) => v?.capsTaken).length).toBeGreaterThan(0);
    expect(heldTogether).toEqual(heldAlone);
  });

  it("sends what comes while a send waits for Redis with the next, each verdict as alone", async () => {
    const relay = await startHeldRelay(REDIS_URL);
    const client = new Redis(relay.url, { enableAutoPipelining: true });
    try {
      const alone = await admission();
      const held = await admission(client);
      const turn = () => new Promise((resolve) => setImmediate(resolve));
      const commands = (from: number, name: string) =>
        relay.sent().slice(from).split(`\r\n${name}\r\n`).length - 1;

      // One by one: the first call admitted, the second too, the first's slot given back, the rest.
      const [c0, c1, ...rest] = CALLS as [Call, Call, ...Call[]];
      const oneByOne: (Counted | null)[] = [await count(alone.admit, c0)];
      oneByOne.push(await count(alone.admit, c1));
      alone.admit.release(oneByOne[0]?.slot ?? null, [], 0);
      for (const c of rest) oneByOne.push(await count(alone.admit, c));
      const heldAlone = await heldIn(alone.prefix);

      const first = await count(held.admit, c0);
      const from = relay.sent().length;
      relay.holding = true;
      const second = count(held.admit, c1);
      while (commands(from, "evalsha") === 0) await turn();
      // While the second call's script waits for its answer: a release and the rest, a turn each.
      held.admit.release(first?.slot ?? null, [], 0);
      const others: Promise<Counted | null>[] = [];
      for (const c of rest) {
        others.push(count(held.admit, c));
        await turn();
      }
      await turn();
      expect([commands(from, "evalsha"), commands(from, "zrem")]).toEqual([1, 0]);
      relay.release();
      const together = [first, await second, ...(await Promise.all(others))];
      const heldAfter = await heldIn(held.prefix);
      // The rest went as one send: the release first, then one script for every call.
      expect([commands(from, "evalsha"), commands(from, "zrem")]).toEqual([2, 1]);
      const [, betweenScripts = "", secondScript = ""] = relay
        .sent()
        .slice(from)
        .split("\r\nevalsha\r\n");
      expect(betweenScripts).toContain("\r\nzrem\r\n");
      // Its script names each run of one token's calls once: seven runs for the fourteen calls.
      expect(secondScript.match(/\[\d+,\[\[\[/g)?.length).toBe(7);

      expect(together.every((c) => c !== null)).toBe(true);
      expect(together.map(verdict)).toEqual(oneByOne.map(verdict));
      expect(together.map(verdict).some((v) => v?.asked && v.slot === null)).toBe(true);
      expect(heldAfter).toEqual(heldAlone);
    } finally {
      client.disconnect();
      await relay.close();
    }
  });

  it("counts any run of calls sent together as one script per call would", async () => {
    // Tokens t0 and t1 of account 1, u and v of account 2; a guess of 0 takes nothing from the caps.
    const call = fc.record({
      token: fc.constantFrom("t0", "t1", "u", "v"),
      caps: fc.constantFrom(0, 50, 100, 250),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(call, { minLength: 1, maxLength: 24 }), async (drawn) => {
        const calls = drawn.map((c) => ({ ...c, account: c.token.startsWith("t") ? 1 : 2 }));
        const together = await admission(redis, calls);
        const alone = await admission(redis, calls);
        const asTurn = await Promise.all(calls.map((c) => count(together.admit, c)));
        const heldTogether = await heldIn(together.prefix, calls);
        const oneByOne: (Counted | null)[] = [];
        for (const c of calls) oneByOne.push(await count(alone.admit, c));
        expect(asTurn.map(verdict)).toEqual(oneByOne.map(verdict));
        expect(heldTogether).toEqual(await heldIn(alone.prefix, calls));
      }),
      { numRuns: sized(20, 200), seed: 67 },
    );
  });
});
