import { createHash } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { connect as connectTcp } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ElectrumClient, type RPCNotification } from "@electrum-cash/network";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tokenDnsLabel } from "../../src/access/token-dns.ts";
import { encodeSegwitAddress } from "../../src/bitcoin/address.ts";
import {
  fromHex,
  fromHexReversed,
  parseTransaction,
  serializeTransaction,
  toHex,
} from "../../src/bitcoin/index.ts";
import { electrumScripthash } from "../../src/bitcoin/scripthash.ts";
import { auditRows } from "../support/audit.ts";
import { ElectrumTlsSocket } from "../support/electrum-tls-socket.ts";
import { askDevnetCore, startTestGateway, type TestGateway } from "../support/harness.ts";
import { accountTotals } from "../support/ledger.ts";
import { selfSignedCert } from "../support/self-signed.ts";
import { tlsLines } from "../support/tls-lines.ts";

/** The server names' suffix: wallets connect to `<token>.<network>.electrum.test`. */
const SUFFIX = "electrum.test";

let t: TestGateway;
let port: number;
beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), "bg-electrum-tls-"));
  const { cert, key } = selfSignedCert(`*.regtest.${SUFFIX}`);
  writeFileSync(join(dir, "cert.pem"), cert);
  writeFileSync(join(dir, "key.pem"), key);
  t = await startTestGateway("pglite", {
    // The chain follower looks only when a test asks it to (pollNow).
    events: { pollMs: 60_000 },
    // HTTP and TLS connections from 127.0.0.1 share this count (the last test).
    server: { connectionsPerAddressMax: 3 },
    electrum: {
      subscriptionsMax: 2,
      // Small, so the last test can fill testnet's (which no other test uses) and see past it.
      upstreamSubscriptionsMax: 4,
      tls: {
        port: 0,
        host: "127.0.0.1",
        certFile: join(dir, "cert.pem"),
        keyFile: join(dir, "key.pem"),
        serverNameSuffix: SUFFIX,
      },
    },
  });
  await t.gateway.app.events.pollNow();
  port = t.gateway.http.electrumTls!.port;
});
afterAll(() => t?.close());

async function audit(accountId: number) {
  const rows = await auditRows(t.gateway.app.db, accountId);
  return rows.map((r) => [r.method, r.charged_cc, r.outcome]);
}

const balance = async (accountId: number) =>
  (await accountTotals(t.gateway.app.db, accountId)).account!.balance;

/** A raw TLS connection to the listener with `servername` as SNI (none when null). */
const rawTls = (servername: string | null) => tlsLines(port, servername);

/** A stock wallet's session on `network` for a new account of 10,000 CC, identified (server.version). */
async function wallet(name: string, network = "regtest") {
  const { id, token } = await t.account(name, 10_000);
  const tls = await rawTls(`${tokenDnsLabel(token)}.${network}.${SUFFIX}`);
  tls.send({ jsonrpc: "2.0", id: 0, method: "server.version", params: ["raw", "1.4"] });
  expect(await tls.next()).toMatchObject({ id: 0 });
  /** Subscribes to a script nothing has paid yet: its status is null. */
  const subscribe = async (scripthash: string) => {
    const call = { jsonrpc: "2.0", id: 1, method: "blockchain.scripthash.subscribe" };
    tls.send({ ...call, params: [scripthash] });
    expect(await tls.next()).toEqual({ jsonrpc: "2.0", id: 1, result: null });
  };
  return { id, tls, subscribe };
}

/** Where the coinbases of the blocks mined for payments go. */
const PAYER = encodeSegwitAddress("bcrt", 0, new Uint8Array(20).fill(12));

/** Resolves once devnet's regtest ElectrumX has answered `method` for this script hash. */
function devnetAnswered(method: string, hash: string): Promise<void> {
  const { events } = t.devnet.electrum.get("regtest")!;
  return new Promise<void>((resolve) => {
    const on = (m: string, params: unknown) => {
      if (m !== method || !(params as unknown[]).includes(hash)) return;
      events.off("answered", on);
      resolve();
    };
    events.on("answered", on);
  });
}

/**
 * A regtest transaction paying `script` (fee 10,000 sat): it spends a coinbase mined for it and
 * matured by 100 more blocks (devnet checks no signatures).
 */
async function paymentTo(script: Uint8Array): Promise<string> {
  const core = async (method: string, params: unknown[]) =>
    JSON.parse(await askDevnetCore(t.devnet, method, params, "regtest")).result as unknown;
  const [block] = (await core("generatetoaddress", [1, PAYER])) as string[];
  await core("generatetoaddress", [100, PAYER]);
  const [coinbase] = ((await core("getblock", [block, 1])) as { tx: string[] }).tx as [string];
  const coin = parseTransaction(fromHex((await core("getrawtransaction", [coinbase])) as string));
  return toHex(
    serializeTransaction({
      version: 2,
      locktime: 0,
      inputs: [
        {
          prevTxid: coinbase,
          prevTxidBytes: fromHexReversed(coinbase),
          vout: 0,
          scriptSig: new Uint8Array(0),
          sequence: 0xfffffffd,
          witness: [],
        },
      ],
      outputs: [{ value: coin.outputs[0]!.value - 10_000n, scriptPubKey: script }],
    }),
  );
}

/** What a session is sent when a script hash's status changes. */
const notification = (scripthash: string, status: string) => ({
  jsonrpc: "2.0",
  method: "blockchain.scripthash.subscribe",
  params: [scripthash, status],
});

describe("Electrum over TLS for stock wallets: the token in the server name (SNI)", () => {
  it("an unmodified Electrum client library gets the header and script-hash notifications after a block, each charged", async () => {
    const { id, token } = await t.account("tls-wallet", 10_000);
    // An address nothing has paid yet: its status starts null.
    const program = new Uint8Array(20).fill(9);
    const address = encodeSegwitAddress("bcrt", 0, program);
    const scripthash = electrumScripthash(Uint8Array.from([0x00, 0x14, ...program]));
    const socket = new ElectrumTlsSocket(`${tokenDnsLabel(token)}.regtest.${SUFFIX}`, port);
    const client = new ElectrumClient("blockgate-test", "1.4", socket);
    const notifications: RPCNotification[] = [];
    const waiting: (() => void)[] = [];
    client.on("notification", (n) => {
      notifications.push(n);
      waiting.shift()?.();
    });
    /** Resolves once `count` notifications have come (the subscriptions' answers included). */
    const received = (count: number) =>
      new Promise<void>((resolve) => {
        const check = () => (notifications.length >= count ? resolve() : waiting.push(check));
        check();
      });
    await client.connect();
    try {
      // The library hands each subscription's answer over as a notification too.
      await client.subscribe("blockchain.headers.subscribe");
      await client.subscribe("blockchain.scripthash.subscribe", scripthash);
      const tip = (notifications[0]!.params![0] as { height: number }).height;
      expect(notifications[1]!.params).toEqual([scripthash, null]);
      const mined = JSON.parse(
        await askDevnetCore(t.devnet, "generatetoaddress", [1, address], "regtest"),
      ) as { result: string[] };
      // The script hash's new status comes from the server's notification, without a look at
      // the chain; the header once the chain follower looks.
      await received(3);
      await t.gateway.app.events.pollNow();
      await received(4);
      // ElectrumX's status of a history of one transaction: the block's coinbase, at its height.
      const block = JSON.parse(
        await askDevnetCore(t.devnet, "getblock", [mined.result[0], 1], "regtest"),
      ) as { result: { tx: string[]; height: number } };
      const status = createHash("sha256")
        .update(`${block.result.tx[0]}:${block.result.height}:`)
        .digest("hex");
      expect(notifications.slice(2).map((n) => [n.method, n.params])).toEqual([
        ["blockchain.scripthash.subscribe", [scripthash, status]],
        ["blockchain.headers.subscribe", [{ height: tip + 1, hex: expect.any(String) }]],
      ]);

      // Unsubscribed: the next block pushes its header only. The ping is answered after every
      // notification of that look (one queue per session), so nothing else can follow unseen.
      await client.unsubscribe("blockchain.scripthash.subscribe", scripthash);
      await askDevnetCore(t.devnet, "generatetoaddress", [1, address], "regtest");
      await t.gateway.app.events.pollNow();
      await received(5);
      expect(await client.request("server.ping")).toBeNull();
      expect(notifications.slice(4).map((n) => [n.method, n.params])).toEqual([
        ["blockchain.headers.subscribe", [{ height: tip + 2, hex: expect.any(String) }]],
      ]);
    } finally {
      await client.disconnect(true);
    }
    const rows = await audit(id);
    // The library also pings by itself when the connection has been idle a while (a slow run
    // made it, in CI): its pings are set aside, ours (the last) must be there, each free.
    const pings = rows.filter((r) => r[0] === "server.ping");
    expect(pings.length).toBeGreaterThanOrEqual(1);
    expect(pings.every((r) => r[1] === 0 && r[2] === "ok")).toBe(true);
    expect(rows.filter((r) => r[0] !== "server.ping")).toEqual([
      ["server.version", 0, "ok"],
      ["blockchain.headers.subscribe", 10, "ok"],
      ["blockchain.scripthash.subscribe", 100, "ok"],
      ["blockchain.scripthash.subscribe", 5, "ok"], // the notifications, pricing.events
      ["blockchain.headers.subscribe", 5, "ok"],
      ["blockchain.scripthash.unsubscribe", 0, "ok"],
      ["blockchain.headers.subscribe", 5, "ok"],
    ]);
    expect(rows.at(-1)).toEqual(["server.ping", 0, "ok"]);
    expect(await balance(id)).toBe(10_000 - rows.reduce((sum, r) => sum + (r[1] as number), 0));
  });

  it("when the balance no longer covers a notification, the session is told once and notifications stop", async () => {
    // headers.subscribe 10 + scripthash.subscribe 100 + one notification 5 (server.version is free):
    // the script hash's (the server notifies it), not the header's (at the follower's look).
    const { id, token } = await t.account("tls-poor", 115);
    const program = new Uint8Array(20).fill(10);
    const address = encodeSegwitAddress("bcrt", 0, program);
    const scripthash = electrumScripthash(Uint8Array.from([0x00, 0x14, ...program]));
    const tls = await rawTls(`${tokenDnsLabel(token)}.regtest.${SUFFIX}`);
    const call = (n: number, method: string, params: unknown[] = []) =>
      tls.send({ jsonrpc: "2.0", id: n, method, params });
    call(0, "server.version", ["raw", "1.4"]);
    call(1, "blockchain.headers.subscribe");
    call(2, "blockchain.scripthash.subscribe", [scripthash]);
    for (const n of [0, 1, 2]) expect(await tls.next()).toMatchObject({ id: n });
    await askDevnetCore(t.devnet, "generatetoaddress", [1, address], "regtest");
    expect(await tls.next()).toMatchObject({ method: "blockchain.scripthash.subscribe" });
    await t.gateway.app.events.pollNow();
    expect(await tls.next()).toMatchObject({
      id: null,
      error: { code: -32010, message: expect.stringMatching(/: notifications stop$/) },
    });
    // The session still answers calls (free ones here); the next block pushes nothing.
    await askDevnetCore(t.devnet, "generatetoaddress", [1, address], "regtest");
    await t.gateway.app.events.pollNow();
    call(3, "server.ping");
    expect(await tls.next()).toMatchObject({ id: 3, result: null });
    tls.end();
    await tls.closed;
    expect((await audit(id)).map((r) => r.join(" "))).toEqual([
      "server.version 0 ok",
      "blockchain.headers.subscribe 10 ok",
      "blockchain.scripthash.subscribe 100 ok",
      "blockchain.scripthash.subscribe 5 ok",
      "blockchain.headers.subscribe 0 insufficient_credits",
      "server.ping 0 ok",
    ]);
    expect(await balance(id)).toBe(0);
  });

  it("a payment entering the mempool is notified at once, charged once, then again when mined; sessions share one upstream subscription", async () => {
    const upstream = t.devnet.electrum.get("regtest")!;
    const feed = t.gateway.app.electrum.get("regtest")!.scripthashes;
    const script = Uint8Array.from([0x00, 0x14, ...new Uint8Array(20).fill(11)]);
    const scripthash = electrumScripthash(script);
    const payment = await paymentTo(script);

    // Two wallets of two accounts watch the same script: one subscription upstream.
    const wallets = [await wallet("tls-mempool-1"), await wallet("tls-mempool-2")];
    const [first, second] = wallets as [(typeof wallets)[0], (typeof wallets)[0]];
    const subscribedUpstream = devnetAnswered("blockchain.scripthash.subscribe", scripthash);
    await first.subscribe(scripthash);
    await subscribedUpstream;
    await second.subscribe(scripthash);

    // Into devnet's mempool, through its Core: each wallet is told before any block.
    const txid = JSON.parse(
      await askDevnetCore(t.devnet, "sendrawtransaction", [payment], "regtest"),
    ).result as string;
    const status = (height: number) =>
      createHash("sha256").update(`${txid}:${height}:`).digest("hex");
    const notified = (s: string) => notification(scripthash, s);
    for (const w of wallets) expect(await w.tls.next()).toEqual(notified(status(0)));
    expect(upstream.scripthashSubscribers(scripthash)).toBe(1);

    // Mined: the status changes again, notified without any look at the chain.
    const [mined] = JSON.parse(
      await askDevnetCore(t.devnet, "generatetoaddress", [1, PAYER], "regtest"),
    ).result as string[];
    const { height } = JSON.parse(await askDevnetCore(t.devnet, "getblock", [mined, 1], "regtest"))
      .result as { height: number };
    for (const w of wallets) expect(await w.tls.next()).toEqual(notified(status(height)));

    // The first wallet lets go: the second still holds the upstream subscription.
    first.tls.send({
      jsonrpc: "2.0",
      id: 2,
      method: "blockchain.scripthash.unsubscribe",
      params: [scripthash],
    });
    expect(await first.tls.next()).toEqual({ jsonrpc: "2.0", id: 2, result: true });
    expect(feed.covers(scripthash)).toBe(true);
    expect(upstream.scripthashSubscribers(scripthash)).toBe(1);
    // The last holder goes (its connection closes): unsubscribed upstream.
    const unsubscribedUpstream = devnetAnswered("blockchain.scripthash.unsubscribe", scripthash);
    second.tls.end();
    await unsubscribedUpstream;
    expect(upstream.scripthashSubscribers(scripthash)).toBe(0);
    expect(feed.covers(scripthash)).toBe(false);
    first.tls.end();
    await Promise.all(wallets.map((w) => w.tls.closed));
    const charged = [
      ["server.version", 0, "ok"],
      ["blockchain.scripthash.subscribe", 100, "ok"],
      ["blockchain.scripthash.subscribe", 5, "ok"], // in the mempool
      ["blockchain.scripthash.subscribe", 5, "ok"], // mined
    ];
    expect(await audit(first.id)).toEqual([
      ...charged,
      ["blockchain.scripthash.unsubscribe", 0, "ok"],
    ]);
    expect(await audit(second.id)).toEqual(charged);
  });

  it("the token as issued works too; past electrum.subscriptionsMax a subscription is refused, uncharged", async () => {
    const { id, token } = await t.account("tls-limit", 10_000);
    const tls = await rawTls(`${token}.regtest.${SUFFIX}`);
    const subscribe = (n: number) =>
      tls.send({
        jsonrpc: "2.0",
        id: n,
        method: "blockchain.scripthash.subscribe",
        params: [String(n).repeat(64)],
      });
    tls.send({ jsonrpc: "2.0", id: 0, method: "server.version", params: ["raw", "1.4"] });
    expect(await tls.next()).toMatchObject({ id: 0, result: [expect.any(String), "1.4"] });
    subscribe(1);
    expect(await tls.next()).toMatchObject({ id: 1, result: null });
    // A batch whose two new scripts each pass the check, but not both: the second is refused.
    tls.send(
      [2, 3].map((n) => ({
        jsonrpc: "2.0",
        id: n,
        method: "blockchain.scripthash.subscribe",
        params: [String(n).repeat(64)],
      })),
    );
    expect(await tls.next()).toMatchObject([
      { id: 2, result: null },
      { id: 3, error: { code: -32006, message: "your address subscription limit 2 reached" } },
    ]);
    subscribe(4);
    expect(await tls.next()).toEqual({
      jsonrpc: "2.0",
      id: 4,
      error: { code: 1, message: "your address subscription limit 2 reached" },
    });
    // One already held is no new subscription.
    subscribe(1);
    expect(await tls.next()).toMatchObject({ id: 1, result: null });
    tls.end();
    await tls.closed;
    expect((await audit(id)).map((r) => r.join(" "))).toEqual([
      "server.version 0 ok",
      "blockchain.scripthash.subscribe 100 ok",
      "blockchain.scripthash.subscribe 100 ok",
      // Refused within its batch (LIMIT_EXCEEDED), uncharged: rejected, no upstream failed.
      "blockchain.scripthash.subscribe 0 rejected",
      "blockchain.scripthash.subscribe 0 rejected",
      "blockchain.scripthash.subscribe 100 ok",
    ]);
  });

  it("no token, an unknown token or an unknown network: one JSON-RPC error line, closed, nothing charged", async () => {
    const { id, token } = await t.account("tls-refused", 10_000);
    const refused = async (servername: string | null) => {
      const tls = await rawTls(servername);
      tls.send({ jsonrpc: "2.0", id: 0, method: "server.version", params: [] });
      const line = await tls.next();
      await tls.closed;
      return line;
    };
    const unauthenticated = { jsonrpc: "2.0", id: null, error: { code: -32001 } };
    expect(await refused(null)).toMatchObject(unauthenticated);
    expect(await refused(`regtest.${SUFFIX}`)).toMatchObject(unauthenticated);
    expect(await refused(`${"bgt_".padEnd(47, "x")}.regtest.${SUFFIX}`)).toMatchObject(
      unauthenticated,
    );
    expect(await refused(`${tokenDnsLabel(token)}.nosuch.${SUFFIX}`)).toMatchObject(
      unauthenticated,
    );
    expect(await audit(id)).toEqual([]);
    expect(await balance(id)).toBe(10_000);
    // The log names the token by its hint only.
    expect(t.logs.join("")).not.toContain(token.slice(4));
  });

  it("connections past server.connectionsPerAddressMax, HTTP and TLS counted together, are closed before the handshake", async () => {
    const { token } = await t.account("tls-connections", 1_000);
    // One keep-alive HTTP connection, seen by the server (it answered), and two TLS sessions.
    const http = connectTcp(Number(new URL(t.url).port), "127.0.0.1");
    http.write("GET /healthz HTTP/1.1\r\nhost: gateway\r\n\r\n");
    await new Promise((resolve) => http.once("data", resolve));
    const sessions = [
      await rawTls(`${token}.regtest.${SUFFIX}`),
      await rawTls(`${token}.regtest.${SUFFIX}`),
    ];
    const refused = t.gateway.app.metrics.connectionsRefused;
    const before = (await refused.get()).values[0]?.value ?? 0;
    await expect(rawTls(`${token}.regtest.${SUFFIX}`)).rejects.toThrow();
    expect((await refused.get()).values[0]?.value).toBe(before + 1);
    http.destroy();
    for (const s of sessions) s.end();
    await Promise.all(sessions.map((s) => s.closed));
  });

  it("when the subscription connection drops, the script hashes are subscribed again on reconnection and a change missed meanwhile is sent", async () => {
    const upstream = t.devnet.electrum.get("regtest")!;
    const script = Uint8Array.from([0x00, 0x14, ...new Uint8Array(20).fill(13)]);
    const scripthash = electrumScripthash(script);
    const payment = await paymentTo(script);
    const { id, tls, subscribe } = await wallet("tls-reconnect");
    const subscribedUpstream = devnetAnswered("blockchain.scripthash.subscribe", scripthash);
    await subscribe(scripthash);
    await subscribedUpstream;
    // ElectrumX goes away (every connection cut) while the payment enters the mempool.
    await upstream.stop();
    const txid = JSON.parse(
      await askDevnetCore(t.devnet, "sendrawtransaction", [payment], "regtest"),
    ).result as string;
    await upstream.restart();
    const status = createHash("sha256").update(`${txid}:0:`).digest("hex");
    expect(await tls.next()).toEqual(notification(scripthash, status));
    tls.end();
    await tls.closed;
    expect(await audit(id)).toEqual([
      ["server.version", 0, "ok"],
      ["blockchain.scripthash.subscribe", 100, "ok"],
      ["blockchain.scripthash.subscribe", 5, "ok"],
    ]);
  });

  it("past electrum.upstreamSubscriptionsMax, a script hash is read again at each chain event instead", async () => {
    // testnet's subscriptions are held up to the cap (the process's, not the sessions' own).
    const feed = t.gateway.app.electrum.get("testnet")!.scripthashes;
    const releases: (() => void)[] = [];
    for (let n = 0; ; n++) {
      const release = feed.hold(String(n).padStart(64, "f"), () => {});
      if (!release) break;
      releases.push(release);
    }
    expect(releases).toHaveLength(4);
    const program = new Uint8Array(20).fill(14);
    const address = encodeSegwitAddress("tb", 0, program);
    const scripthash = electrumScripthash(Uint8Array.from([0x00, 0x14, ...program]));
    const { id, tls, subscribe } = await wallet("tls-past-cap", "testnet");
    await subscribe(scripthash);
    expect(feed.covers(scripthash)).toBe(false);
    const [mined] = JSON.parse(
      await askDevnetCore(t.devnet, "generatetoaddress", [1, address], "testnet"),
    ).result as string[];
    await t.gateway.app.events.pollNow();
    const block = JSON.parse(await askDevnetCore(t.devnet, "getblock", [mined, 1], "testnet"))
      .result as { tx: string[]; height: number };
    const status = createHash("sha256").update(`${block.tx[0]}:${block.height}:`).digest("hex");
    expect(await tls.next()).toEqual(notification(scripthash, status));
    tls.end();
    await tls.closed;
    for (const release of releases) release();
    expect(await audit(id)).toEqual([
      ["server.version", 0, "ok"],
      ["blockchain.scripthash.subscribe", 100, "ok"],
      ["blockchain.scripthash.subscribe", 5, "ok"],
    ]);
  });
});
