import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { tokenDnsLabel } from "../../src/access/token-dns.ts";
import {
  type FuzzCase,
  HOSTILE_ANSWER_MS,
  type HostileShape,
  hostileCase,
  nestedAndLiteral,
  nestedAndValue,
  nestedList,
  wideObject,
} from "../support/arbitraries.ts";
import { auditRecords } from "../support/audit.ts";
import { type Answer, problemsOf, refused, send } from "../support/fuzz-checks.ts";
import { HAL_TXID, startTestGateway, type TestGateway } from "../support/harness.ts";
import { accountTotals, expectWholeLedgerOk } from "../support/ledger.ts";
import { selfSignedCert } from "../support/self-signed.ts";

/**
 * The shapes an attacker-style review sent (test/support/arbitraries.ts, hostile shapes), over
 * real sockets on every route: a JSON-RPC body with one 50,000-key object (once a long-blocked
 * event loop, whatever the token), GraphQL input nested 2,000 `_and` or a 5,000-deep list deep (a stack
 * overflow answered 500), nesting past every bound in JSON. Each is answered within
 * HOSTILE_ANSWER_MS, well formed in the route's protocol, and nothing refused is charged.
 */

const SUFFIX = "electrum.test";

let t: TestGateway;
let origin: URL;
beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), "bg-hostile-"));
  const { cert, key } = selfSignedCert(`*.mainnet.${SUFFIX}`);
  writeFileSync(join(dir, "cert.pem"), cert);
  writeFileSync(join(dir, "key.pem"), key);
  t = await startTestGateway("pglite", {
    // Token limits at the ceilings an operator may set, so that nesting the text does not show
    // (fragments spread into one another) reaches the checks after parsing.
    graph: { tokensMax: 1_000_000 },
    graphql: { tokensMax: 100_000 },
    electrum: {
      tls: {
        port: 0,
        host: "127.0.0.1",
        certFile: join(dir, "cert.pem"),
        keyFile: join(dir, "key.pem"),
        serverNameSuffix: SUFFIX,
      },
    },
  });
  origin = new URL(t.url);
});
afterAll(() => t?.close());

const totals = async (id: number) => {
  const { account, audit } = await accountTotals(t.gateway.app.db, id);
  return { balance: account!.balance, charged: audit.reduce((n, a) => n + (a.charged ?? 0), 0) };
};

/** Sends a case; the answer is well formed, in time, and uncharged when refused. */
async function answered(c: FuzzCase, account: { id: number; token: string }): Promise<Answer> {
  const before = await totals(account.id);
  const answer = await send(origin, c, account.token, 20_000);
  expect(problemsOf(c, answer), answer.text.slice(0, 300)).toEqual([]);
  expect(answer.ms).toBeLessThan(HOSTILE_ANSWER_MS);
  if (refused(c, answer)) expect(await totals(account.id)).toEqual(before);
  return answer;
}

const json = (a: Answer) => JSON.parse(a.text) as Record<string, unknown>;

describe("JSON-RPC bodies with a 50,000-key object (in id, params or another member)", () => {
  const shapes: HostileShape[] = ["rpc-wide-id", "rpc-wide-params", "rpc-wide-extra"];

  it("a token without credits: refused at once, in JSON-RPC, on node and electrum alike; nothing charged", async () => {
    const poor = await t.account("hostile-poor", 0);
    for (const route of ["node", "electrum"] as const) {
      for (const shape of shapes) {
        const answer = await answered(hostileCase(shape, route, 50_000), poor);
        const error = json(answer).error as { code: number };
        // -32010: the balance does not cover it; an object of unknown named parameters is
        // refused before that, as Core and ElectrumX refuse it (-8, -32602, 1).
        expect([-32010, -8, -32602, 1]).toContain(error.code);
      }
    }
    expect(await totals(poor.id)).toEqual({ balance: 0, charged: 0 });
  });

  it("a token with credits: answered at once as the call it is (the id echoed), refusals uncharged", async () => {
    const rich = await t.account("hostile-rich", 1_000_000);
    for (const route of ["node", "electrum"] as const) {
      for (const shape of shapes) {
        const answer = await answered(hostileCase(shape, route, 50_000), rich);
        if (shape === "rpc-wide-id") {
          expect(Object.keys(json(answer).id as object)).toHaveLength(50_000);
        }
      }
    }
  });

  it("a spaced body with one key of a megabyte, and one nested 400,000 deep: at once, uncharged", async () => {
    const { id, token } = await t.account("hostile-keys", 1_000_000);
    for (const route of ["node", "electrum"] as const) {
      await answered(hostileCase("rpc-long-key", route, 1_000_000), { id, token });
      const deep = await answered(hostileCase("rpc-deep", route, 400_000), { id, token });
      expect(json(deep).error).toEqual({ code: -32700, message: "Parse error" });
    }
    expect((await totals(id)).charged).toBe(0);
  });
});

describe("GraphQL input nested past the bound (64 lists and input objects)", () => {
  const lastAudit = async (id: number) => {
    const rows = await auditRecords(
      t.gateway.app.db,
      { accountId: id },
      ["outcome", "error_code", "charged_cc"],
      { newestFirst: true, limit: 1 },
    );
    return rows[0];
  };
  const refusedShapes: [HostileShape, number, string][] = [
    ["graphql-nested-and", 2_000, "$.query"],
    ["graphql-nested-list", 5_000, "$.query"],
    ["graphql-nested-and-variable", 200, "$.variableValues.w"],
    ["graphql-nested-list-variable", 500, "$.variableValues.h"],
    ["graphql-deep-selection", 5_000, "$.query"],
    ["graphql-fragment-chain", 10_000, "$.query"],
  ];

  it("graph route: Hasura's error shape, depth-limit-exceeded, HTTP 200 as its other refusals; audited, uncharged", async () => {
    const account = await t.account("hostile-graph", 1_000_000);
    for (const [shape, size, path] of refusedShapes) {
      const answer = await answered(hostileCase(shape, "graph", size), account);
      expect(answer.status).toBe(200);
      expect(json(answer)).toEqual({
        errors: [
          {
            message: expect.stringMatching(/more than (64|256) deep; the limit is (64|256)$/),
            extensions: { path, code: "depth-limit-exceeded" },
          },
        ],
      });
      expect(await lastAudit(account.id)).toEqual({
        outcome: "rejected",
        error_code: "LIMIT_EXCEEDED",
        charged_cc: 0,
      });
    }
  });

  it("unified API: LIMIT_EXCEEDED, 400 to graphql-response+json and 200 to application/json; audited, uncharged", async () => {
    const account = await t.account("hostile-gateway", 1_000_000);
    for (const [shape, size] of refusedShapes) {
      const c = hostileCase(shape, "gateway", size);
      for (const [accept, status] of [
        ["application/graphql-response+json", 400],
        ["application/json", 200],
      ] as const) {
        const answer = await answered({ ...c, headers: { ...c.headers, accept } }, account);
        expect(answer.status).toBe(status);
        expect(json(answer)).toEqual({
          errors: [
            {
              message: expect.stringMatching(/more than (64|256) deep; the limit is (64|256)$/),
              extensions: { code: "LIMIT_EXCEEDED" },
            },
          ],
        });
        expect(await lastAudit(account.id)).toEqual({
          outcome: "rejected",
          error_code: "LIMIT_EXCEEDED",
          charged_cc: 0,
        });
      }
    }
  });

  it("fragments each spread twice into the next, 40 of them (1.8 KB): the schema's error at once", async () => {
    const account = await t.account("hostile-fan", 1_000_000);
    const graph = await answered(hostileCase("graphql-fragment-fan", "graph", 40), account);
    expect(json(graph)).toEqual({
      errors: [
        {
          message: `field "nope" not found in type: 'query_root'`,
          extensions: { path: "$.selectionSet.nope", code: "validation-failed" },
        },
      ],
    });
    // The unified API counts each spread as a level of depth (graphql-armor): past 12.
    const gateway = await answered(hostileCase("graphql-fragment-fan", "gateway", 40), account);
    expect(json(gateway)).toMatchObject({ errors: [{ extensions: { code: "LIMIT_EXCEEDED" } }] });
  });

  it("fragments spread in a small cycle are left to validation, which refuses them in its words", async () => {
    const account = await t.account("hostile-cycle", 1_000_000);
    const cycle = (type: string) =>
      `{ ...A } fragment A on ${type} { ...B } fragment B on ${type} { ...A }`;
    const graph = await answered(
      {
        ...hostileCase("graphql-fragment-chain", "graph", 1),
        body: JSON.stringify({ query: cycle("query_root") }),
      },
      account,
    );
    expect(json(graph)).toMatchObject({
      errors: [{ message: expect.stringMatching(/Cannot spread fragment "A" within itself/) }],
    });
    const gateway = await answered(
      {
        ...hostileCase("graphql-fragment-chain", "gateway", 1),
        body: JSON.stringify({ query: cycle("Query") }),
      },
      account,
    );
    expect(json(gateway)).toMatchObject({
      errors: [{ extensions: { code: "GRAPHQL_VALIDATION_FAILED" } }],
    });
  });

  it("at the bound the query runs as usual; one level past it, it is refused", async () => {
    const account = await t.account("hostile-bound", 1_000_000);
    // n nested `_and` around one condition: 2n + 2 lists and objects deep.
    const literal = (n: number) => `{ block(where: ${nestedAndLiteral(n)}) { height } }`;
    const variable = "query ($w: block_bool_exp) { block(where: $w) { height } }";
    for (const route of ["graph", "gateway"] as const) {
      const url = `${t.url}/${route}/mainnet/${account.token}`;
      const post = async (body: unknown) => {
        const res = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        });
        return (await res.json()) as { data?: unknown; errors?: { message: string }[] };
      };
      expect((await post({ query: literal(31) })).data).toEqual({ block: [{ height: 1 }] });
      expect((await post({ query: literal(32) })).errors?.[0]?.message).toMatch(/limit is 64/);
      const at = await post({ query: variable, variables: { w: nestedAndValue(31) } });
      expect(at.data).toEqual({ block: [{ height: 1 }] });
      const past = await post({ query: variable, variables: { w: nestedAndValue(32) } });
      expect(past.errors?.[0]?.message).toBe(
        "variable $w nests lists and input objects more than 64 deep; the limit is 64",
      );
    }
  });

  /**
   * A graphql-ws (graphql-transport-ws) session written by hand, so that the server gets the very
   * text: a client library would have to build, and stringify, a value as deep first.
   */
  async function overGraphqlWs(token: string, payload: string): Promise<unknown> {
    const ws = new WebSocket(
      `ws://127.0.0.1:${origin.port}/gateway/mainnet/${token}`,
      "graphql-transport-ws",
    );
    const messages: unknown[] = [];
    const waiting: ((m: unknown) => void)[] = [];
    ws.on("message", (data) => {
      const m: unknown = JSON.parse(String(data));
      const w = waiting.shift();
      if (w) w(m);
      else messages.push(m);
    });
    const next = () =>
      messages.length > 0
        ? Promise.resolve(messages.shift())
        : new Promise<unknown>((r) => waiting.push(r));
    await new Promise((resolve, reject) => {
      ws.once("open", resolve);
      ws.once("error", reject);
    });
    try {
      ws.send(JSON.stringify({ type: "connection_init" }));
      expect(await next()).toEqual({ type: "connection_ack" });
      ws.send(`{"id":"1","type":"subscribe","payload":${payload}}`);
      return await next();
    } finally {
      ws.close();
    }
  }

  it("unified API over WebSocket and over GET: the same refusals", async () => {
    const account = await t.account("hostile-socket", 1_000_000);
    const before = await totals(account.id);
    const query = "query ($h: [Int!]) { block(where: {height: {_in: $h}}) { height } }";
    for (const payload of [
      JSON.stringify({ query: `{ block(where: ${nestedAndLiteral(2_000)}) { height } }` }),
      // No JSON depth bound on a WebSocket message: the variables' own bound holds.
      `{"query":${JSON.stringify(query)},"variables":{"h":${nestedList(400_000)}}}`,
    ]) {
      const started = performance.now();
      const answer = (await overGraphqlWs(account.token, payload)) as {
        payload: { errors?: { message: string }[] } | { message: string }[];
      };
      const errors = Array.isArray(answer.payload) ? answer.payload : answer.payload.errors;
      expect(errors?.[0]?.message).toMatch(/more than 64 deep; the limit is 64$/);
      expect(performance.now() - started).toBeLessThan(HOSTILE_ANSWER_MS);
    }
    const get = await fetch(
      `${t.url}/gateway/mainnet/${account.token}?${new URLSearchParams({
        query,
        // What fits in a request line (Node's headers are bounded at 16 KB).
        variables: `{"h":${nestedList(1_000)}}`,
      })}`,
      { headers: { accept: "application/graphql-response+json" } },
    );
    expect(get.status).toBe(400);
    expect(await get.json()).toMatchObject({
      errors: [{ extensions: { code: "LIMIT_EXCEEDED" } }],
    });
    expect(await totals(account.id)).toEqual(before);
  });
});

describe("Electrum sessions (WebSocket, TLS lines) with the same shapes", () => {
  /** Sends one message and reads the one answer. */
  async function overWebSocket(token: string, text: string): Promise<unknown> {
    const ws = new WebSocket(`ws://127.0.0.1:${origin.port}/electrum/mainnet/${token}`);
    await new Promise((resolve, reject) => {
      ws.once("open", resolve);
      ws.once("error", reject);
    });
    const answer = new Promise<string>((resolve) => ws.once("message", (d) => resolve(String(d))));
    ws.send(text);
    try {
      return JSON.parse(await answer);
    } finally {
      ws.close();
    }
  }

  async function overTls(token: string, text: string): Promise<unknown> {
    const socket = connect({
      port: t.gateway.http.electrumTls!.port,
      host: "127.0.0.1",
      servername: `${tokenDnsLabel(token)}.mainnet.${SUFFIX}`,
      rejectUnauthorized: false,
    });
    await new Promise((resolve, reject) => {
      socket.once("secureConnect", resolve);
      socket.once("error", reject);
    });
    let buffered = "";
    const line = new Promise<string>((resolve) => {
      socket.on("data", (chunk: Buffer) => {
        buffered += chunk.toString("utf8");
        const at = buffered.indexOf("\n");
        if (at >= 0) resolve(buffered.slice(0, at));
      });
    });
    socket.write(`${text}\n`);
    try {
      return JSON.parse(await line);
    } finally {
      socket.end();
    }
  }

  it("a 50,000-key object and JSON nested 400,000 deep: answered at once, nothing charged", async () => {
    const { id, token } = await t.account("hostile-sessions", 0);
    const wide = JSON.stringify({
      jsonrpc: "2.0",
      id: 7,
      method: "blockchain.transaction.get",
      params: [HAL_TXID],
      extra: wideObject(50_000),
    });
    const deep = `{"jsonrpc":"2.0","id":8,"method":"server.version","params":[${nestedList(400_000)}]}`;
    for (const session of [overWebSocket, overTls]) {
      const started = performance.now();
      expect(await session(token, wide)).toMatchObject({ id: 7, error: { code: -32010 } });
      expect(await session(token, deep)).toEqual({
        jsonrpc: "2.0",
        id: null,
        error: { code: -32700, message: "Parse error" },
      });
      expect(performance.now() - started).toBeLessThan(2 * HOSTILE_ANSWER_MS);
    }
    expect(await totals(id)).toEqual({ balance: 0, charged: 0 });
  });
});

describe("afterwards", () => {
  it("the gateway is alive and the ledger checks out", async () => {
    expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
    await expectWholeLedgerOk(t.gateway.app.db);
  });
});
