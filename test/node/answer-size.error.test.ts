// Very large answers on the node route (server.responseBytesMax): block 277647 (149,164 bytes) at
// verbosity 2 is 1,066,896 bytes of JSON and at 3 1,331,090, so two of them pass a 2 MB limit.
// Refused up front where the gateway knows the blocks' sizes (nothing asked, nothing charged),
// cut off where it does not (charged as answered: the node did the work), and in both cases
// RESPONSE_TOO_LARGE, never "unreachable", one log line, the node's breaker untouched.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { auditOf } from "../support/audit.ts";
import { burst } from "../support/burst.ts";
import { callsRead } from "../support/core-calls.ts";
import { blockTxids, post, rpc, startTestGateway, type TestGateway } from "../support/harness.ts";
import { expectLedgerOk } from "../support/ledger.ts";

const BLOCK = "0000000000000000054a714e580b16c583701712ab91060e92dbde6eb1e052a8"; // 277647
const OTHER = "00000000000000001203c1ea455e38612bdf36e9967fdead11935c8e22283ecc"; // 333961
const LIMIT = 2_000_000;
const PRICE = { v1: 200, v2: 600, v3: 1000 }; // mainnet

let t: TestGateway;
let token: string;
let accountId: number;
beforeAll(async () => {
  t = await startTestGateway("pglite", {
    networks: ["mainnet"],
    server: { responseBytesMax: LIMIT },
    // Two members on the one devnet Core: a retry on "another" node would be a second request.
    upstreams: { node: { mainnet: ["devnet", "devnet"] } },
    failover: { hedge: { enabled: false } },
  });
  ({ token, id: accountId } = await t.account("big", 1_000_000));
});
afterAll(() => t.close());

const url = () => `${t.url}/node/mainnet/${token}`;
const mainnetCore = () => t.devnet.cores.get("mainnet")!;
const getblock = (hash: string, verbosity: number, id: number | string) =>
  rpc("getblock", [hash, verbosity], id);

interface RpcError {
  code: number;
  message: string;
  data: { code: string; limitBytes: number; answerBytesMin?: number };
}
const errorsOf = (json: unknown) =>
  (json as { id: number; error?: RpcError }[]).map((item) => item.error);

/** What each test reads of a request's audit records. */
const AUDITED = [
  "method",
  "outcome",
  "error_code",
  "charged_cc",
  "http_status",
  "upstream",
] as const;

/** The log lines of one request, parsed. */
const logsOf = (requestId: string) =>
  t.logs
    .map((line) => JSON.parse(line) as { level: number; msg: string; requestId?: string })
    .filter((l) => l.requestId === requestId && l.msg !== "request");

describe("an answer found too large as it comes (the blocks not known yet)", () => {
  let res: Awaited<ReturnType<typeof post>>;
  let requestId: string;
  let read: ReturnType<typeof callsRead>;
  beforeAll(async () => {
    read = callsRead(mainnetCore(), "getblock");
    res = await post(url(), [getblock(BLOCK, 2, 1), getblock(BLOCK, 3, 2)]);
    read.stop();
    requestId = res.headers.get("x-request-id")!;
  });

  it("is RESPONSE_TOO_LARGE (400) for every call, naming the limit, not 'unreachable'", () => {
    expect(res.status).toBe(400);
    const errors = errorsOf(res.json);
    expect(errors).toHaveLength(2);
    for (const error of errors) {
      expect(error).toMatchObject({
        code: -32008,
        data: { code: "RESPONSE_TOO_LARGE", limitBytes: LIMIT },
      });
      expect(error!.message).toMatch(/over the limit of 2000000 bytes/);
      // Core says how large its answer is (Content-Length): the client is told.
      expect(error!.data.answerBytesMin).toBeGreaterThan(LIMIT);
    }
  });

  it("asked the node once, never again elsewhere, and left its breakers closed", () => {
    expect(read.requests()).toBe(1);
    expect(read.count()).toBe(2);
    const breakers = t.gateway.app.nodes.get("mainnet")!.breakers();
    expect(breakers.map((b) => b.state)).toEqual(["closed", "closed"]);
  });

  it("is charged as answered, each call at its price, with its audit record", async () => {
    expect(res.headers.get("x-credits-charged")).toBe(String(PRICE.v2 + PRICE.v3));
    expect(await auditOf(t.gateway.app.db, requestId, AUDITED)).toEqual([
      expect.objectContaining({
        method: "getblock",
        outcome: "too_large",
        error_code: "RESPONSE_TOO_LARGE",
        charged_cc: PRICE.v2,
        http_status: 400,
        upstream: expect.stringMatching(/^127\.0\.0\.1:\d+$/),
      }),
      expect.objectContaining({ outcome: "too_large", charged_cc: PRICE.v3 }),
    ]);
  });

  it("is logged once, not as a warning", () => {
    const lines = logsOf(requestId);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 30, calls: 2, limitBytes: LIMIT });
  });

  it("leaves /readyz saying the node is up", async () => {
    const ready = await fetch(`${t.url}/readyz`);
    expect(ready.status).toBe(200);
  });
});

describe("a request whose answer is known too large is refused before anything is asked", () => {
  beforeAll(async () => {
    // One block at verbosity 2, within the limit: answered, and its size is now known.
    const one = await post(url(), getblock(BLOCK, 2, 1));
    expect(one.status).toBe(200);
  });

  it.each([
    ["the same block twice (its answer known to the byte)", [2, 2]],
    ["verbosity 3 twice (at least what verbosity 2 said)", [3, 3]],
  ])("%s: 400, nothing asked, nothing charged, in milliseconds", async (_what, levels) => {
    const read = callsRead(mainnetCore(), "getblock");
    const started = performance.now();
    const res = await post(
      url(),
      levels.map((v, i) => getblock(BLOCK, v, i)),
    );
    const ms = performance.now() - started;
    expect(res.status).toBe(400);
    for (const error of errorsOf(res.json)) {
      expect(error).toMatchObject({ code: -32008, data: { code: "RESPONSE_TOO_LARGE" } });
      expect(error!.message).toMatch(/would be at least \d+ bytes, over the limit/);
    }
    read.stop();
    expect(read.requests()).toBe(0);
    expect(res.headers.get("x-credits-charged")).toBe("0");
    const requestId = res.headers.get("x-request-id")!;
    const rows = await auditOf(t.gateway.app.db, requestId, AUDITED);
    expect(rows.map((r) => [r.outcome, r.error_code, r.charged_cc])).toEqual(
      levels.map(() => ["rejected", "RESPONSE_TOO_LARGE", 0]),
    );
    expect(logsOf(requestId)).toHaveLength(1);
    // No upstream call and no upstream-sized work: refused in the time of a plain request.
    expect(ms).toBeLessThan(1_000);
  });

  it("a call that fits, and another block beside it, go through: Core's bytes, in parts", async () => {
    const batch = [getblock(BLOCK, 2, 1), getblock(OTHER, 2, "two")];
    const res = await post(url(), batch);
    expect(res.status).toBe(200);
    expect(errorsOf(res.json)).toEqual([undefined, undefined]);
    // Some 1.8 MB: written in parts (no Content-Length), the same text Core writes.
    expect(res.headers.get("content-length")).toBeNull();
    const node = t.devnet.cores.get("mainnet")!;
    const direct = await fetch(node.url, {
      method: "POST",
      headers: {
        authorization: `Basic ${Buffer.from(`${node.user}:${node.password}`).toString("base64")}`,
      },
      body: JSON.stringify(batch),
    });
    expect(res.text).toBe((await direct.text()).trimEnd());
  });
});

it("a large reply with an Idempotency-Key is kept whole: the retry gets the same bytes, free", async () => {
  const send = () =>
    fetch(url(), {
      method: "POST",
      headers: { "content-type": "application/json", "idempotency-key": "large-1" },
      body: JSON.stringify([getblock(BLOCK, 2, 1), getblock(OTHER, 2, 2)]),
    });
  const first = await send();
  const firstText = await first.text();
  const again = await send();
  expect(again.status).toBe(200);
  expect(await again.text()).toBe(firstText);
  expect(first.headers.get("x-credits-charged")).toBe(String(2 * PRICE.v2));
  expect(again.headers.get("x-credits-charged")).toBe("0");
});

describe("identical reads of one request are asked once", () => {
  it("sixty getblock calls at verbosity 1: one call to the node, sixty answers, sixty charges", async () => {
    const read = callsRead(mainnetCore(), "getblock");
    const res = await post(
      url(),
      Array.from({ length: 60 }, (_, i) => getblock(OTHER, 1, i)),
    );
    read.stop();
    expect(res.status).toBe(200);
    const items = res.json as { id: number; result: { hash: string } }[];
    expect(items.map((i) => i.id)).toEqual(Array.from({ length: 60 }, (_, i) => i));
    expect(items.every((i) => i.result.hash === OTHER)).toBe(true);
    expect(read.count()).toBe(1);
    expect(res.headers.get("x-credits-charged")).toBe(String(60 * PRICE.v1));
  });

  it("three of a block not known yet: one trip, over the limit three times over, charged", async () => {
    // 951658: 674,112 bytes at verbosity 2; three of them, 2,022,336.
    const fresh = "00000000000000000001cbe4b4add61d60d9a470e0958f1b4024f202db9ca628";
    const read = callsRead(mainnetCore(), "getblock");
    const res = await post(
      url(),
      Array.from({ length: 3 }, (_, i) => getblock(fresh, 2, i)),
    );
    read.stop();
    // The node answered one call (its size unknown before): three copies go over the limit.
    expect(read.count()).toBe(1);
    expect(res.status).toBe(400);
    expect(errorsOf(res.json).every((e) => e?.data.code === "RESPONSE_TOO_LARGE")).toBe(true);
    expect(res.headers.get("x-credits-charged")).toBe(String(3 * PRICE.v2));
  });
});

describe("an answer that does not say its length is cut where it passes the limit", () => {
  let node: Server;
  let g: TestGateway;
  let sentBytes = 0;
  let closed: Promise<void>;
  beforeAll(async () => {
    // A node that answers without Content-Length, and never stops: only the gateway can end it.
    let onClose!: () => void;
    closed = new Promise((resolve) => {
      onClose = resolve;
    });
    node = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { "content-type": "application/json" });
      res.write('[{"result":"');
      const chunk = "ab".repeat(32 * 1024);
      const more = () => {
        if (res.destroyed) return;
        sentBytes += chunk.length;
        if (res.write(chunk)) setImmediate(more);
        else res.once("drain", more);
      };
      res.on("close", onClose);
      more();
    });
    await new Promise<void>((resolve) => node.listen(0, "127.0.0.1", resolve));
    const { port } = node.address() as AddressInfo;
    g = await startTestGateway("pglite", {
      networks: ["mainnet"],
      server: { responseBytesMax: LIMIT },
      upstreams: {
        node: { mainnet: [{ url: `http://127.0.0.1:${port}/`, user: "u", password: "p" }] },
      },
    });
  });
  afterAll(async () => {
    await g.close();
    node.closeAllConnections();
    await new Promise((resolve) => node.close(resolve));
  });

  it("RESPONSE_TOO_LARGE, the upstream's connection closed, a bounded read", async () => {
    const { token: own } = await g.account("endless", 10_000);
    const res = await post(`${g.url}/node/mainnet/${own}`, rpc("getblockcount", []));
    expect(res.status).toBe(400);
    const error = (res.json as { error: RpcError }).error;
    expect(error.data).toEqual({ code: "RESPONSE_TOO_LARGE", limitBytes: LIMIT });
    expect(error.message).toMatch(/^the answer is over the limit of 2000000 bytes/);
    await closed;
    // What the node got written before it saw the close: the limit and what the sockets buffer.
    expect(sentBytes).toBeLessThan(LIMIT + 16 * 1024 * 1024);
    expect(g.gateway.app.nodes.get("mainnet")!.breakers()[0]!.state).toBe("closed");
  });
});

describe("a trip too large for one request fails no other request that shared or joined it", () => {
  let g: TestGateway;
  let own: string;
  // Block 702861's largest transaction (170,363 bytes): its verbose form passes 64 KiB alone.
  const BIG_TX = "2a570190f8c8bda77f44e7baf5e48e301c2e89a0efe7a1f25d9a8a8a3a0ed756";
  const small = blockTxids().slice(0, 8);
  const gtx = (txid: string, id: number) => rpc("getrawtransaction", [txid, 1], id);
  beforeAll(async () => {
    g = await startTestGateway("pglite", {
      networks: ["mainnet"],
      server: { responseBytesMax: 64 * 1024 },
      // No transaction cache: every call goes to the node.
      cache: { bytesMax: 0 },
    });
    ({ token: own } = await g.account("bystander", 100_000));
  });
  afterAll(() => g.close());
  const gurl = () => `${g.url}/node/mainnet/${own}`;

  it("a call that joined a too-large request's trip is sent again, alone, and answered", async () => {
    const core = g.devnet.cores.get("mainnet")!;
    const pool = g.gateway.app.nodes.get("mainnet")!;
    const read = callsRead(core, "getrawtransaction");
    const joined = pool.shared.stats.joined;
    const release = core.hold();
    let large: Promise<Awaited<ReturnType<typeof post>>>;
    let bystander: Promise<Awaited<ReturnType<typeof post>>>;
    try {
      large = post(gurl(), [gtx(BIG_TX, 1), gtx(small[0]!, 2)]);
      await vi.waitFor(() => expect(read.count()).toBe(2), { timeout: 20_000 });
      bystander = post(gurl(), gtx(small[0]!, 3));
      await vi.waitFor(() => expect(pool.shared.stats.joined - joined).toBe(1), {
        timeout: 20_000,
      });
    } finally {
      release();
      read.stop();
    }
    expect((await large).status).toBe(400);
    const alone = await bystander;
    expect(alone.status).toBe(200);
    expect((alone.json as { result: { txid: string } }).result.txid).toBe(small[0]);
  });

  it("requests combined with a too-large one are sent again each alone, and answered", async () => {
    const core = g.devnet.cores.get("mainnet")!;
    const trips: string[][] = [];
    const stop = core.watch((calls) =>
      trips.push(calls.map((c) => (Array.isArray(c.params) ? String(c.params[0]) : ""))),
    );
    try {
      const replies = await burst(g.url, [
        { path: `/node/mainnet/${own}`, body: gtx(BIG_TX, 0) },
        ...small
          .slice(1)
          .map((txid, i) => ({ path: `/node/mainnet/${own}`, body: gtx(txid, i + 1) })),
      ]);
      expect(replies[0]!.status).toBe(400);
      expect(replies.slice(1).map((r) => r.status)).toEqual(small.slice(1).map(() => 200));
    } finally {
      stop();
    }
    // The large call went in a combined trip, and again alone.
    const withBig = trips.filter((t) => t.includes(BIG_TX));
    expect(withBig.some((t) => t.length > 1)).toBe(true);
    expect(withBig.some((t) => t.length === 1)).toBe(true);
  });
});

it("the ledger checks out", async () => {
  await expectLedgerOk(t.gateway.app.db, accountId);
});
