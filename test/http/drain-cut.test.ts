import { connect } from "node:net";
import pg from "pg";
import { afterEach, describe, expect, it, vi } from "vitest";
import { WebSocket } from "ws";
import { openDatabase } from "../../src/db/open.ts";
import { auditRows, lockAudit } from "../support/audit.ts";
import {
  HAL_TXID,
  POSTGRES_URL,
  post,
  rpc,
  startTestGateway,
  type TestGateway,
} from "../support/harness.ts";
import { graphqlWsClient } from "../support/subscribers.ts";

/**
 * What a drain does with the requests that reached the gateway before it began (in process; the
 * gateway's own process under SIGTERM: test/e2e/drain.test.ts): each is answered, or cut, counted
 * and never charged.
 */
let t: TestGateway | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** The audit records of `accountId`, read on a connection of its own (the gateway's is closed). */
async function auditAfter(gateway: TestGateway, accountId: number) {
  const db = await openDatabase({
    databaseUrl: POSTGRES_URL,
    schema: gateway.schema!,
    pgliteDir: "",
    poolSize: 1,
  });
  try {
    return await auditRows(db, accountId);
  } finally {
    await db.close();
  }
}

describe("a drain out of time", () => {
  it("cuts a call not yet charged (counted, never charged) and lets one whose charge has begun answer", async () => {
    t = await startTestGateway("postgres", {
      networks: ["mainnet"],
      server: { port: 0, drainTimeoutMs: 200 },
    });
    const { id, token } = await t.account("cut", 10_000);
    const core = t.devnet.cores.get("mainnet")!;
    const indexer = t.devnet.indexers.get("mainnet")!;
    const seen = core.stats.httpRequests;
    const seenByIndexer = indexer.stats.httpRequests;
    const releaseIndexer = indexer.hold();
    const releaseCore = core.hold();
    const lock = new pg.Client({ connectionString: POSTGRES_URL });
    const observer = new pg.Client({ connectionString: POSTGRES_URL });
    await Promise.all([lock.connect(), observer.connect()]);
    try {
      // Held by the indexer until the drain gives up on it: never charged.
      const held = post(`${t.url}/graph/mainnet/${token}`, {
        query: "{ block(limit: 1) { height } }",
      }).then(
        (r) => r.status,
        (err: Error) => err.message,
      );
      // The node answers it once the audit records are locked: its charge waits on the lock.
      const charging = post(`${t.url}/node/mainnet/${token}`, rpc("getrawtransaction", [HAL_TXID]));
      // Both reserved and at their upstreams.
      await vi.waitFor(
        () => {
          expect(core.stats.httpRequests).toBe(seen + 1);
          expect(indexer.stats.httpRequests).toBe(seenByIndexer + 1);
        },
        { timeout: 10_000 },
      );
      await lockAudit(lock, t.schema!);
      releaseCore();
      // The charge's statement waits on the lock (watched from another connection).
      const waiting = async () =>
        (
          await observer.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))",
            [(lock as unknown as { processID: number }).processID],
          )
        ).rows[0]!.n;
      await vi.waitFor(async () => expect(await waiting()).toBe(1), { timeout: 10_000 });

      const closing = t.gateway.close();
      // The drain's time runs out: the call still at the indexer is cut under its client.
      expect(await held).toBe("fetch failed");
      // The charge goes through, and its answer with it.
      await lock.query("COMMIT");
      const answered = await charging;
      expect(answered.status).toBe(200);
      expect(answered.headers.get("x-credits-charged")).toBe("200");
      await closing;
      expect(t.logs.join("")).toMatch(/"cut":1,"msg":"drained"/);
      // One record, charged: the answered call's. The cut one left nothing.
      expect(await auditAfter(t, id)).toEqual([
        { method: "getrawtransaction", charged_cc: 200, outcome: "ok" },
      ]);
    } finally {
      releaseIndexer();
      releaseCore();
      await Promise.all([lock.end(), observer.end()]);
    }
  });
});

describe("a drain as it begins", () => {
  it("answers a request already sent on a kept-alive connection, unread yet", async () => {
    t = await startTestGateway("pglite", { networks: ["mainnet"] });
    const { token } = await t.account("kept", 10_000);
    const body = JSON.stringify(rpc("getblockcount", []));
    const request = `POST /node/mainnet/${token} HTTP/1.1\r\nhost: gateway\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`;
    const socket = connect(Number(new URL(t.url).port), "127.0.0.1");
    let received = "";
    socket.setEncoding("utf8").on("data", (s: string) => {
      received += s;
    });
    const ended = new Promise<string>((resolve) => {
      socket.once("error", (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
      socket.once("close", () => resolve("closed"));
    });
    socket.write(request);
    await vi.waitFor(() => expect(received).toMatch(/"id":1\}\n?$/), { timeout: 10_000 });
    // The connection is idle between requests: the next one is in the gateway's socket, unread,
    // when the drain begins.
    socket.write(request);
    const drained = t.gateway.http.drain(10_000);
    expect(await ended).toBe("closed");
    expect(received.match(/HTTP\/1\.1 200 OK/g)).toHaveLength(2);
    expect(received.split("HTTP/1.1 200 OK")[2]).toMatch(/^\r\n(?:.*\r\n)*connection: close\r\n/i);
    expect(await drained).toMatchObject({ cut: 0 });
  });

  it("an Electrum WebSocket session answers the message in hand and the one unread, then 1001", async () => {
    t = await startTestGateway("postgres", { networks: ["mainnet"] });
    const { id, token } = await t.account("ws", 10_000);
    const port = Number(new URL(t.url).port);
    const ws = new WebSocket(`ws://127.0.0.1:${port}/electrum/mainnet/${token}`);
    const got: { id: number; result: unknown }[] = [];
    ws.on("message", (data) =>
      got.push(JSON.parse(String(data)) as { id: number; result: unknown }),
    );
    const closed = new Promise<number>((resolve) => ws.once("close", (code) => resolve(code)));
    await new Promise<void>((resolve) => ws.once("open", () => resolve()));
    const core = t.devnet.cores.get("mainnet")!;
    const seen = core.stats.httpRequests;
    const release = core.hold();
    try {
      ws.send(JSON.stringify(rpc("blockchain.transaction.get", [HAL_TXID], 1)));
      await vi.waitFor(() => expect(core.stats.httpRequests).toBe(seen + 1), { timeout: 10_000 });
      ws.send(JSON.stringify(rpc("server.ping", [], 2)));
      const closing = t.gateway.close();
      release();
      expect(await closed).toBe(1001);
      await closing;
    } finally {
      release();
    }
    expect(got.map((m) => m.id)).toEqual([1, 2]);
    expect(String(got[0]!.result)).toMatch(/^0100000001c997a5e56e104102/);
    expect(await auditAfter(t, id)).toEqual([
      { method: "blockchain.transaction.get", charged_cc: 100, outcome: "ok" },
      { method: "server.ping", charged_cc: 0, outcome: "ok" },
    ]);
  });
  it("a graphql-ws session ends its subscriptions, answers the query in hand, then 1001", async () => {
    t = await startTestGateway("postgres", { networks: ["mainnet"] });
    const { id, token } = await t.account("graphql-ws", 10_000);
    const client = graphqlWsClient(t, token, "mainnet");
    const closed = new Promise<number>((resolve) =>
      client.on("closed", (event) => resolve((event as { code: number }).code)),
    );
    const events = t.gateway.app.events;
    const subscribers = events.subscribers();
    const subscription = new Promise<string>((resolve) =>
      client.subscribe(
        { query: "subscription { newBlock { hash } }" },
        { next: () => {}, error: () => resolve("error"), complete: () => resolve("complete") },
      ),
    );
    await vi.waitFor(() => expect(events.subscribers()).toBe(subscribers + 1), {
      timeout: 10_000,
    });
    const core = t.devnet.cores.get("mainnet")!;
    const seen = core.stats.httpRequests;
    const release = core.hold();
    try {
      const answer = new Promise<unknown>((resolve, reject) =>
        client.subscribe(
          { query: "{ chain { name } }" },
          { next: resolve, error: reject, complete: () => {} },
        ),
      );
      await vi.waitFor(() => expect(core.stats.httpRequests).toBe(seen + 1), { timeout: 10_000 });
      const closing = t.gateway.close();
      release();
      expect(await answer).toMatchObject({
        data: { chain: { name: "main" } },
        extensions: { cost: { charged: 40 } },
      });
      expect(await closed).toBe(1001);
      await closing;
      expect(await Promise.race([subscription, Promise.resolve("still open")])).not.toBe(
        "still open",
      );
    } finally {
      release();
      await client.dispose();
    }
    // The query, answered; the subscription ended before any event, so never charged.
    expect(await auditAfter(t, id)).toEqual([{ method: "graphql", charged_cc: 40, outcome: "ok" }]);
  });
});
