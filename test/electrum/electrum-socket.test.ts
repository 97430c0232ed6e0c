import { createHash } from "node:crypto";
import { ElectrumClient, type RPCParameter } from "@electrum-cash/network";
import { ElectrumWebSocket } from "@electrum-cash/web-socket";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { revokeToken } from "../../src/access/tokens.ts";
import { CATALOGUE } from "../../src/routes/catalogue/methods.ts";
import { auditRows } from "../support/audit.ts";
import { someAddress } from "../support/devnet-core.ts";
import {
  askDevnetCore,
  HAL_TXID,
  post,
  rpc,
  startTestGateway,
  type TestGateway,
} from "../support/harness.ts";

let t: TestGateway;
let port: number;
beforeAll(async () => {
  // The chain follower looks only when a test asks it to (pollNow).
  t = await startTestGateway("pglite", { events: { pollMs: 60_000 } });
  await t.gateway.app.events.pollNow();
  port = Number(new URL(t.url).port);
});
afterAll(() => t.close());

/** A raw WebSocket session on the Electrum route: each answer, in order, parsed. */
async function open(path: string): Promise<{ ws: WebSocket; next(): Promise<unknown> }> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}${path}`);
  const inbox: unknown[] = [];
  const waiting: ((v: unknown) => void)[] = [];
  ws.on("message", (data) => {
    const value = JSON.parse(String(data));
    const w = waiting.shift();
    if (w) w(value);
    else inbox.push(value);
  });
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  return {
    ws,
    next: () =>
      inbox.length > 0 ? Promise.resolve(inbox.shift()) : new Promise((r) => waiting.push(r)),
  };
}

const audit = (accountId: number) => auditRows(t.gateway.app.db, accountId);

describe("the Electrum route over WebSocket: one JSON-RPC message per frame, metered per call", () => {
  it("an unmodified Electrum client library (electrum-cash) negotiates and calls through the gateway", async () => {
    const { id, token } = await t.account("ws-library", 10_000);
    // The library builds ws://host:port; the route's path travels in the port's place.
    const socket = new ElectrumWebSocket(
      "127.0.0.1",
      `${port}/electrum/mainnet/${token}` as unknown as number,
      false,
    );
    const client = new ElectrumClient("blockgate-test", "1.4", socket);
    await client.connect();
    try {
      const hex = await client.request("blockchain.transaction.get", HAL_TXID);
      expect(typeof hex).toBe("string");
      expect(String(hex)).toContain("0100000001c997a5e56e104102");
      const header = await client.request("blockchain.block.header", 170);
      expect(typeof header).toBe("string");
    } finally {
      await client.disconnect(true);
    }
    const rows = await audit(id);
    expect(rows.map((r) => r.method)).toEqual([
      "server.version",
      "blockchain.transaction.get",
      "blockchain.block.header",
    ]);
    expect(rows.map((r) => r.charged_cc)).toEqual([0, 100, 40]);
  });

  it("the library calls every Electrum method of the catalogue, and gets the HTTP route's answer", async () => {
    const { token } = await t.account("ws-catalogue", 100_000);
    const socket = new ElectrumWebSocket(
      "127.0.0.1",
      `${port}/electrum/mainnet/${token}` as unknown as number,
      false,
    );
    const client = new ElectrumClient("blockgate-test", "1.4", socket);
    await client.connect();
    try {
      for (const m of CATALOGUE.filter((c) => c.backend === "electrum")) {
        const viaSocket = await client.request(m.method, ...(m.example as RPCParameter[]));
        const viaPost = (await post(`${t.url}/electrum/mainnet/${token}`, rpc(m.method, m.example)))
          .json as { result?: unknown; error?: { message: string } };
        if (viaPost.error) {
          // The library hands a server's refusal back as an Error carrying its message.
          expect(viaSocket, m.method).toBeInstanceOf(Error);
          expect((viaSocket as Error).message, m.method).toContain(viaPost.error.message);
        } else if (m.method === "blockchain.scripthash.unsubscribe") {
          // A session answers whether it held the script (the subscribe just before); a POST,
          // which has no session, never did.
          expect([viaSocket, viaPost.result]).toEqual([true, false]);
        } else {
          expect(JSON.parse(JSON.stringify(viaSocket)), m.method).toEqual(viaPost.result);
        }
      }
    } finally {
      await client.disconnect(true);
    }
  });

  it("a batch in a frame is answered in a frame; a bad message gets the protocol's error", async () => {
    const { token } = await t.account("ws-raw", 10_000);
    const { ws, next } = await open(`/electrum/mainnet/${token}`);
    ws.send(
      JSON.stringify([
        { jsonrpc: "2.0", id: 1, method: "blockchain.transaction.get", params: [HAL_TXID] },
        { jsonrpc: "2.0", id: 2, method: "blockchain.nosuch", params: [] },
      ]),
    );
    const batch = (await next()) as { id: number; result?: string; error?: { code: number } }[];
    expect(batch.map((a) => a.id)).toEqual([1, 2]);
    expect(batch[1]!.error!.code).toBe(-32601);
    ws.send("{not json");
    expect(await next()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } });
    ws.close();
  });

  it("a batch whose answers pass a megabyte comes in one frame, the HTTP route's text", async () => {
    const { token } = await t.account("ws-large", 10_000);
    // Block 702861's three largest transactions (170 KB, 100 KB, 99 KB), decoded: some 1.5 MB.
    const batch = [
      "2a570190f8c8bda77f44e7baf5e48e301c2e89a0efe7a1f25d9a8a8a3a0ed756",
      "cbf820e4508038797d8844ee7affc901450682a0caba871e3a87844a69228fde",
      "b5426bd9f52628030f432f2fbdfde1dcade71ad7387af7e3d3cb893844689346",
    ].map((txid, i) => rpc("blockchain.transaction.get", [txid, true], i));
    const overHttp = await post(`${t.url}/electrum/mainnet/${token}`, batch);
    expect(overHttp.text.length).toBeGreaterThan(1024 * 1024);
    // Written in parts over HTTP (src/http/reply.ts), joined into the one frame here.
    expect(overHttp.headers.get("content-length")).toBeNull();
    const ws = new WebSocket(`ws://127.0.0.1:${port}/electrum/mainnet/${token}`);
    const frame = new Promise<string>((resolve) => ws.once("message", (d) => resolve(String(d))));
    await new Promise((resolve) => ws.once("open", resolve));
    ws.send(JSON.stringify(batch));
    expect(await frame).toBe(overHttp.text);
    ws.close();
  });

  it("a bad token is refused at the upgrade with HTTP 401; the node route takes no upgrade", async () => {
    const status = (path: string) =>
      new Promise<number>((resolve) => {
        const ws = new WebSocket(`ws://127.0.0.1:${port}${path}`);
        ws.on("unexpected-response", (_req, res) => {
          resolve(res.statusCode ?? 0);
          ws.terminate();
        });
        ws.on("open", () => resolve(101));
        ws.on("error", () => {});
      });
    expect(await status(`/electrum/mainnet/${"a".repeat(40)}`)).toBe(401);
    const { token } = await t.account("ws-node", 10);
    expect(await status(`/node/mainnet/${token}`)).toBe(405);
  });

  it("a token revoked mid-session is refused at its next message, and the session closed (1008)", async () => {
    const { token } = await t.account("ws-revoked", 10_000);
    const { ws, next } = await open(`/electrum/mainnet/${token}`);
    ws.send(
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "blockchain.block.header", params: [170] }),
    );
    expect(await next()).toMatchObject({ id: 1 });
    await revokeToken(t.gateway.app.db, { token });
    const closed = new Promise<number>((resolve) => ws.once("close", (code) => resolve(code)));
    ws.send(
      JSON.stringify({ jsonrpc: "2.0", id: 2, method: "blockchain.block.header", params: [170] }),
    );
    expect(await next()).toMatchObject({ error: { code: -32001 } });
    expect(await closed).toBe(1008);
  });
});

describe("Electrum push over WebSocket: header notifications once subscribed, each charged", () => {
  it("pushes the new tip (one notification per look at the chain), charged as an event", async () => {
    const { id, token } = await t.account("ws-push", 10_000);
    const { ws, next } = await open(`/electrum/regtest/${token}`);
    ws.send(
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "blockchain.headers.subscribe", params: [] }),
    );
    const subscribed = (await next()) as { result: { height: number; hex: string } };
    const mined = JSON.parse(
      await askDevnetCore(t.devnet, "generatetoaddress", [2, someAddress("regtest")], "regtest"),
    ) as { result: string[] };
    await t.gateway.app.events.pollNow();
    const pushed = (await next()) as {
      method: string;
      params: [{ height: number; hex: string }];
      id?: unknown;
    };
    expect(pushed.method).toBe("blockchain.headers.subscribe");
    expect(pushed.id).toBeUndefined();
    expect(pushed.params[0].height).toBe(subscribed.result.height + 2);
    // The header is the new tip's: it hashes to the last block devnet produced.
    const bytes = Buffer.from(pushed.params[0].hex, "hex");
    const sha = (b: Buffer) => createHash("sha256").update(b).digest();
    expect(
      Buffer.from(sha(sha(bytes)))
        .reverse()
        .toString("hex"),
    ).toBe(mined.result[1]);
    ws.close();
    const rows = await audit(id);
    expect(rows.map((r) => [r.method, r.charged_cc])).toEqual([
      ["blockchain.headers.subscribe", 10], // the call, regtest's price
      ["blockchain.headers.subscribe", 5], // the notification, pricing.events
    ]);
  });
});
