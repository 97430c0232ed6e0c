import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/load.ts";
import { configProblems } from "../support/config.ts";

const problems = configProblems;

describe("config: operating keys", () => {
  it("defaults: a 10 s drain, /readyz checks bounded at 1 s and reused for 2 s, no operator token", () => {
    const config = parseConfig({});
    expect(config.server.drainTimeoutMs).toBe(10_000);
    expect(config.readiness).toEqual({ timeoutMs: 1_000, cacheMs: 2_000 });
    expect(config.operator).toEqual({ tokenSha256: [] });
  });

  it("limits, each refused with its path", () => {
    expect(problems({ server: { drainTimeoutMs: 300_001 } })[0]).toMatch(
      /^server\.drainTimeoutMs: /,
    );
    expect(problems({ server: { drainTimeoutMs: -1 } })[0]).toMatch(/^server\.drainTimeoutMs: /);
    expect(problems({ server: { drainTimeoutMs: 300_000 } })).toEqual([]);
    expect(problems({ readiness: { timeoutMs: 10_001 } })[0]).toMatch(/^readiness\.timeoutMs: /);
    expect(problems({ readiness: { cacheMs: 99 } })[0]).toMatch(/^readiness\.cacheMs: /);
    expect(problems({ readiness: { cacheMs: 60_001 } })[0]).toMatch(/^readiness\.cacheMs: /);
  });

  it("operator digests: 64 hex digits, stored lower-case; a token in clear is refused", () => {
    const hex = "AB".repeat(32);
    expect(parseConfig({ operator: { tokenSha256: [hex] } }).operator.tokenSha256).toEqual([
      hex.toLowerCase(),
    ]);
    expect(problems({ operator: { tokenSha256: [`bgo_${"a".repeat(43)}`] } })).toEqual([
      "operator.tokenSha256[0]: expected a SHA-256 digest: 64 hex digits",
    ]);
    expect(problems({ operator: { token: "x" } })).toEqual(["operator.token is not a known key"]);
  });
});
