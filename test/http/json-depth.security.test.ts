import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JSON_DEPTH_MAX, jsonDepthOver } from "../../src/protocol/json/json-depth.ts";
import { HAL_TXID, startTestGateway, type TestGateway } from "../support/harness.ts";
import { accountTotals } from "../support/ledger.ts";

/** Nesting of a parsed value: a scalar is 0, `[]` and `{}` are 1. */
function depthOf(value: unknown): number {
  if (Array.isArray(value)) return 1 + Math.max(0, ...value.map(depthOf));
  if (typeof value === "object" && value !== null) {
    return 1 + Math.max(0, ...Object.values(value).map(depthOf));
  }
  return 0;
}

/** A seeded generator of JSON values whose strings hold brackets, quotes and escapes. */
function generator(seed: number) {
  let s = seed;
  const next = () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s / 2 ** 31;
  };
  const tricky = ["[", "]", "{", "}", '"', "\\", '\\"[', "\u2028", "a", "[[[", "}}"];
  const value = (depth: number): unknown => {
    const r = next();
    if (depth === 0 || r < 0.3) {
      if (r < 0.1) return Math.floor(next() * 1e6);
      if (r < 0.15) return null;
      return Array.from(
        { length: Math.floor(next() * 4) },
        () => tricky[Math.floor(next() * tricky.length)],
      ).join("");
    }
    const n = Math.floor(next() * 3) + (r < 0.9 ? 1 : 0);
    if (r < 0.65) return Array.from({ length: n }, () => value(depth - 1));
    const out: Record<string, unknown> = {};
    for (let i = 0; i < n; i++) out[`k${i}[{"`] = value(depth - 1);
    return out;
  };
  return value;
}

describe("jsonDepthOver", () => {
  it("agrees with the parsed value's depth on 3,000 generated documents, at every bound", () => {
    for (let seed = 1; seed <= 3_000; seed++) {
      const value = generator(seed)(1 + (seed % 9));
      const text = JSON.stringify(value);
      const depth = depthOf(JSON.parse(text));
      for (const max of [0, 1, depth - 1, depth, depth + 1].filter((m) => m >= 0)) {
        expect(jsonDepthOver(text, max), `${text} max ${max}`).toBe(depth > max);
      }
    }
  });

  it("counts a 1 MB run of brackets without recursion", () => {
    expect(jsonDepthOver("[".repeat(1 << 20), JSON_DEPTH_MAX)).toBe(true);
    expect(jsonDepthOver(`"${"[".repeat(1 << 20)}"`, JSON_DEPTH_MAX)).toBe(false);
  });
});

describe("bodies nested past server.jsonDepthMax, on every route", () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway();
  });
  afterAll(() => t.close());

  const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
  const rpcBody = (method: string, params: string) =>
    `{"jsonrpc":"2.0","id":1,"method":"${method}","params":${params}}`;

  async function send(path: string, body: string) {
    const res = await fetch(`${t.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  }

  it("JSON-RPC routes answer Core's Parse error one level past the bound, not at it; uncharged", async () => {
    const { id, token } = await t.account("deep-rpc", 1_000_000);
    for (const [route, method] of [
      ["node", "getrawtransaction"],
      ["electrum", "blockchain.transaction.get"],
    ] as const) {
      // params is level 2; the body's own object is level 1.
      const over = await send(
        `/${route}/mainnet/${token}`,
        rpcBody(method, nested(JSON_DEPTH_MAX)),
      );
      expect(over.json).toEqual({
        jsonrpc: "2.0",
        error: { code: -32700, message: "Parse error" },
        id: null,
      });
      const at = await send(
        `/${route}/mainnet/${token}`,
        rpcBody(method, nested(JSON_DEPTH_MAX - 1)),
      );
      expect((at.json.error as { code: number }).code).not.toBe(-32700);
    }
    // A megabyte of brackets is refused like any unreadable body; the gateway stays up.
    const flood = await send(`/node/mainnet/${token}`, "[".repeat(1_000_000));
    expect(flood.json.error).toEqual({ code: -32700, message: "Parse error" });
    expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
    expect((await accountTotals(t.gateway.app.db, id)).account!.balance).toBe(1_000_000);
  });

  it("the graph mirror refuses it as invalid JSON, the unified API with 400 INVALID_JSON; both audited", async () => {
    const { id, token } = await t.account("deep-graph", 1_000_000);
    const variables = `{"a":${nested(JSON_DEPTH_MAX)}}`;
    const graph = await send(
      `/graph/mainnet/${token}`,
      `{"query":"{ block(limit: 1) { height } }","variables":${variables}}`,
    );
    expect(graph.json).toEqual({
      errors: [{ message: "invalid json", extensions: { path: "$", code: "invalid-json" } }],
    });
    const unified = await send(
      `/gateway/mainnet/${token}`,
      `{"query":"{ transaction(txid: \\"${HAL_TXID}\\") { txid } }","variables":${variables}}`,
    );
    expect(unified.status).toBe(400);
    expect(unified.json).toMatchObject({ errors: [{ extensions: { code: "INVALID_JSON" } }] });
    // Not over the bound: the same query runs.
    const fine = await send(
      `/gateway/mainnet/${token}`,
      `{"query":"{ transaction(txid: \\"${HAL_TXID}\\") { txid } }","variables":{"a":${nested(10)}}}`,
    );
    expect(fine.json).toMatchObject({ data: { transaction: { txid: HAL_TXID } } });
    const totals = await accountTotals(t.gateway.app.db, id);
    expect(totals.audit.find((a) => a.outcome !== "ok")?.n).toBe(2);
  });
});
