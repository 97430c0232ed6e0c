import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { revokeToken } from "../../src/access/tokens.ts";
import { latestAudit } from "../../src/billing/usage/usage.ts";
import { auditOf, latestAuthFailure } from "../support/audit.ts";
import { BLOCK_170, post, startTestGateway, type TestGateway } from "../support/harness.ts";
import { expectLedgerOk } from "../support/ledger.ts";
import { available, type GraphAnswer, viaGateway } from "./support.ts";

/**
 * What a caller cannot make the graph route do: spend with a revoked token, spend or see another
 * account's credits, push an oversize body through, or get hostile text into the audit log.
 */
let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway("pglite", { server: { port: 0, bodyBytesMax: 16_384 } });
});
afterAll(() => t.close());

const forwarded = () => t.devnet.indexers.get("mainnet")!.stats.httpRequests;
const QUERY = { query: "{ block(limit: 1, order_by: {height: desc}) { height } }" };
/** block 1×2×1 + height 2×(1×1×1) = 4: 300 + 4 CC on mainnet. */
const PRICE = 304;

/** What each test reads of a request's audit records. */
const AUDITED = [
  "account_id",
  "token_id",
  "backend",
  "network",
  "method",
  "outcome",
  "error_code",
  "http_status",
  "estimated_cc",
  "charged_cc",
] as const;

describe("graph route: tokens", () => {
  it("a revoked token: 401 in GraphQL's shape, nothing forwarded or charged, audited without an account", async () => {
    const { id, token, tokenId } = await t.account("revoked", 10_000);
    expect((await viaGateway(t, token, QUERY)).status).toBe(200);
    expect(await revokeToken(t.gateway.app.db, { id: tokenId })).toBe(true);
    const before = { forwarded: forwarded(), balance: await available(t, id) };
    const records = (await latestAudit(t.gateway.app.db, id, 100)).length;

    const res = await viaGateway(t, token, QUERY);
    expect(res.status).toBe(401);
    expect(res.json).toEqual({
      errors: [
        {
          message: "unknown, expired or revoked access token",
          extensions: { code: "UNAUTHENTICATED" },
        },
      ],
    });
    expect(res.headers.get("x-credits-charged")).toBeNull();
    expect(forwarded()).toBe(before.forwarded);
    expect(await available(t, id)).toBe(before.balance);
    // One record, of no account: the token's owner is not told of it, nor billed. It stands for
    // every 401 of its source and minute (src/access/auth-failures.ts).
    expect(await auditOf(t.gateway.app.db, res.headers.get("x-request-id"), AUDITED)).toEqual([]);
    expect(await latestAuthFailure(t, "graph")).toEqual([
      {
        calls: 1,
        account_id: null,
        token_id: null,
        backend: "graph",
        network: "mainnet",
        method: "(unauthenticated)",
        outcome: "unauthenticated",
        error_code: "UNAUTHENTICATED",
        http_status: 401,
        estimated_cc: 0,
        charged_cc: 0,
      },
    ]);
    expect(await latestAudit(t.gateway.app.db, id, 100)).toHaveLength(records);
  });

  it("a token of account A charges A only, and its answers show A's balance, whatever else is sent", async () => {
    const a = await t.account("alice", 10_000);
    const b = await t.account("bob", 20_000);
    // B's token beside A's path token, as a header a proxy might add: the path decides.
    const res = await fetch(`${t.url}/graph/mainnet/${a.token}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${b.token}` },
      body: JSON.stringify(QUERY),
    });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as GraphAnswer;
    expect(answer.extensions?.cost).toMatchObject({ charged: PRICE, balance: 10_000 - PRICE });
    expect(res.headers.get("x-credits-balance")).toBe(String(10_000 - PRICE));
    expect(await available(t, a.id)).toBe(10_000 - PRICE);
    expect(await available(t, b.id)).toBe(20_000);
    expect(await auditOf(t.gateway.app.db, res.headers.get("x-request-id"), AUDITED)).toEqual([
      expect.objectContaining({ account_id: a.id, token_id: a.tokenId, charged_cc: PRICE }),
    ]);
    expect(await latestAudit(t.gateway.app.db, b.id, 10)).toEqual([]);
  });
});

describe("graph route: oversize bodies", () => {
  it("a declared body over server.bodyBytesMax: 413 in GraphQL's shape, connection closed, nothing forwarded or charged", async () => {
    const { id, token } = await t.account("big", 10_000);
    const before = forwarded();
    const res = await post(`${t.url}/graph/mainnet/${token}`, {
      query: `{ block(limit: 1) { height } } # ${"x".repeat(20_000)}`,
    });
    expect(res.status).toBe(413);
    expect(res.headers.get("connection")).toBe("close");
    expect(res.json).toEqual({
      errors: [{ message: "body over 16384 bytes", extensions: { code: "PAYLOAD_TOO_LARGE" } }],
    });
    expect(forwarded()).toBe(before);
    expect(await available(t, id)).toBe(10_000);
    expect(await auditOf(t.gateway.app.db, res.headers.get("x-request-id"), AUDITED)).toEqual([
      expect.objectContaining({
        account_id: id,
        outcome: "rejected",
        error_code: "PAYLOAD_TOO_LARGE",
        http_status: 413,
        charged_cc: 0,
      }),
    ]);
  });

  it("a streamed body with no length is cut off at the limit the same way", async () => {
    const { id, token } = await t.account("stream", 10_000);
    const before = forwarded();
    const chunk = new TextEncoder().encode(
      `{"query":"{ block { height } }","x":"${"y".repeat(4096)}`,
    );
    let sent = 0;
    // Sends chunks for as long as it is asked to: the gateway stops asking past the limit.
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent += chunk.byteLength;
        if (sent > 1024 * 1024) controller.close();
        else controller.enqueue(chunk);
      },
    });
    const init: RequestInit & { duplex: "half" } = {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
      duplex: "half", // a request body streamed as it is produced
    };
    const res = await fetch(`${t.url}/graph/mainnet/${token}`, init);
    expect(res.status).toBe(413);
    expect(res.headers.get("connection")).toBe("close");
    expect(((await res.json()) as GraphAnswer).errors![0]!.extensions.code).toBe(
      "PAYLOAD_TOO_LARGE",
    );
    expect(forwarded()).toBe(before);
    expect(await available(t, id)).toBe(10_000);
  });
});

describe("graph route: hostile strings", () => {
  it("U+0000 and control characters in operationName or variable names: refused before the indexer, audited safely", async () => {
    const { id, token } = await t.account("mallory", 10_000);
    const before = forwarded();
    const hostile = "Q\u0000\u001b[31m\u202e";
    const byName = await viaGateway(t, token, {
      query: "query Q { block(limit: 1) { height } }",
      operationName: hostile,
    });
    expect(byName.status).toBe(200);
    expect((byName.json as GraphAnswer).errors![0]!.extensions.code).toBe("validation-failed");
    const byVariable = await viaGateway(t, token, {
      query: "{ block(limit: 1) { height } }",
      variables: { [hostile]: "\u0000" },
    });
    expect((byVariable.json as GraphAnswer).errors![0]!.message).toBe(
      `unexpected variables in variableValues: ${hostile}`,
    );
    expect(forwarded()).toBe(before);
    const rows = await latestAudit(t.gateway.app.db, id, 10);
    expect(rows.map((r) => [r.method, r.outcome, r.charged_cc])).toEqual([
      ["(invalid)", "rejected", 0],
      ["(invalid)", "rejected", 0],
    ]);
    expect(await available(t, id)).toBe(10_000);
  });

  it("U+0000 in a variable's value travels to the indexer as data; the call settles and is audited", async () => {
    const { id, token } = await t.account("trudy", 10_000);
    const before = forwarded();
    const res = await viaGateway(t, token, {
      query: "query ($h: String!) { block_by_pk(hash: $h) { height } block(limit: 1) { height } }",
      variables: { h: `${BLOCK_170}\u0000\u001b[2J` },
    });
    expect(res.status).toBe(200);
    expect((res.json as GraphAnswer).data).toMatchObject({ block_by_pk: null });
    expect(forwarded()).toBe(before + 1);
    const [record] = await latestAudit(t.gateway.app.db, id, 1);
    expect(record).toMatchObject({ method: "block_by_pk,block", outcome: "ok" });
    expect(record!.charged_cc).toBeGreaterThan(0);
    await expectLedgerOk(t.gateway.app.db, id);
  });
});
