import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { tokenDnsLabel } from "../../src/access/token-dns.ts";
import { auditRows } from "../support/audit.ts";
import { post, rpc, startTestGateway, type TestGateway } from "../support/harness.ts";
import { accountTotals } from "../support/ledger.ts";
import { selfSignedCert } from "../support/self-signed.ts";
import { tlsLines } from "../support/tls-lines.ts";

/**
 * The server.* methods stock wallets ask at connect (Electrum 4.3 asks banner, donation address
 * and peers, and drops the server if one is refused), answered by the gateway for itself through
 * the real Electrum route: over the TLS listener as a wallet connects, over WebSocket and HTTP.
 */

const SUFFIX = "electrum.test";
const DONATION = "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080";
const REGTEST_GENESIS = "0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206";
const TESTNET_GENESIS = "000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943";
const SOFTWARE = "ElectrumX 1.18.0 (blockgate devnet)";
/** The methods the gateway answers itself: none may reach the Electrum server. */
const OWN = [
  "server.features",
  "server.donation_address",
  "server.peers.subscribe",
  "server.add_peer",
];

let t: TestGateway;
let port: number;
beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), "bg-electrum-server-"));
  const { cert, key } = selfSignedCert(`*.regtest.${SUFFIX}`);
  writeFileSync(join(dir, "cert.pem"), cert);
  writeFileSync(join(dir, "key.pem"), key);
  t = await startTestGateway("pglite", {
    networks: ["regtest", "testnet"],
    electrum: {
      donationAddress: { regtest: DONATION },
      tls: {
        port: 0,
        certFile: join(dir, "cert.pem"),
        keyFile: join(dir, "key.pem"),
        serverNameSuffix: SUFFIX,
        network: "testnet",
      },
    },
  });
  port = t.gateway.http.electrumTls!.port;
});
afterAll(() => t?.close());

const asked = (network: "regtest" | "testnet", method: string) =>
  t.devnet.electrum.get(network)!.stats.methods[method] ?? 0;
const askedOwn = (network: "regtest" | "testnet") => OWN.map((m) => asked(network, m));

const audit = async (accountId: number) =>
  (await auditRows(t.gateway.app.db, accountId)).map((r) => [r.method, r.charged_cc, r.outcome]);

/** A wallet's TLS session, each call answered in order. */
async function walletSession(servername: string) {
  const tls = await tlsLines(port, servername);
  let id = 0;
  const call = async (method: string, params: unknown = []) => {
    id += 1;
    tls.send({ jsonrpc: "2.0", id, method, params });
    const answer = (await tls.next()) as { id: number; result?: unknown; error?: unknown };
    expect(answer.id).toBe(id);
    return answer;
  };
  return { tls, call };
}

describe("server.* over the TLS listener, as a stock wallet connects", () => {
  it("Electrum 4.3's connect: every call answered, server.* free, the gateway's own not forwarded", async () => {
    const { id, token } = await t.account("tls-connect", 1_000);
    const before = askedOwn("regtest");
    const { tls, call } = await walletSession(`${tokenDnsLabel(token)}.regtest.${SUFFIX}`);
    expect((await call("server.version", ["electrum/4.3.4", "1.4"])).result).toEqual([
      SOFTWARE,
      "1.4",
    ]);
    expect((await call("server.banner")).result).toMatch(/^You are connected to an ElectrumX/);
    expect((await call("server.donation_address")).result).toBe(DONATION);
    expect((await call("server.peers.subscribe")).result).toEqual([]);
    expect((await call("blockchain.relayfee")).result).toBe(0.00001);
    expect((await call("mempool.get_fee_histogram")).result).toEqual([]);
    expect((await call("blockchain.headers.subscribe")).result).toMatchObject({ height: 0 });
    expect((await call("server.features")).result).toEqual({
      hosts: { [`regtest.${SUFFIX}`]: { ssl_port: port } },
      pruning: null,
      server_version: SOFTWARE,
      protocol_min: "1.4",
      protocol_max: "1.4",
      genesis_hash: REGTEST_GENESIS,
      hash_function: "sha256",
      services: [`ssl://regtest.${SUFFIX}:${port}`],
    });
    expect((await call("server.add_peer", [{ hosts: { "peer.example": {} } }])).result).toBe(false);
    expect((await call("server.ping")).result).toBeNull();
    tls.end();
    await tls.closed;
    expect(askedOwn("regtest")).toEqual(before);
    expect(await audit(id)).toEqual([
      ["server.version", 0, "ok"],
      ["server.banner", 0, "ok"],
      ["server.donation_address", 0, "ok"],
      ["server.peers.subscribe", 0, "ok"],
      ["blockchain.relayfee", 5, "ok"],
      ["mempool.get_fee_histogram", 20, "ok"],
      ["blockchain.headers.subscribe", 10, "ok"],
      ["server.features", 0, "ok"],
      ["server.add_peer", 0, "ok"],
      ["server.ping", 0, "ok"],
    ]);
    expect((await accountTotals(t.gateway.app.db, id)).account!.balance).toBe(1_000 - 35);
  });

  it("the listener's default network: its bare name, its genesis, no donation address", async () => {
    const { token } = await t.account("tls-default", 1_000);
    const { tls, call } = await walletSession(`${tokenDnsLabel(token)}.${SUFFIX}`);
    await call("server.version", ["electrum/4.3.4", "1.4"]);
    expect((await call("server.donation_address")).result).toBe("");
    expect((await call("server.features")).result).toMatchObject({
      hosts: { [SUFFIX]: { ssl_port: port } },
      genesis_hash: TESTNET_GENESIS,
      services: [`ssl://${SUFFIX}:${port}`],
    });
    tls.end();
    await tls.closed;
  });

  it("arguments refused in aiorpcx's words, uncharged, not forwarded", async () => {
    const { id, token } = await t.account("tls-refused", 1_000);
    const before = askedOwn("regtest");
    const { tls, call } = await walletSession(`${tokenDnsLabel(token)}.regtest.${SUFFIX}`);
    await call("server.version", ["electrum/4.3.4", "1.4"]);
    expect((await call("server.add_peer")).error).toEqual({
      code: -32602,
      message: '0 arguments passed to method "server.add_peer" but it requires 1',
    });
    expect((await call("server.add_peer", [{}, {}])).error).toEqual({
      code: -32602,
      message: "2 arguments passed to method server.add_peer taking at most 1",
    });
    expect((await call("server.add_peer", { hosts: {} })).error).toEqual({
      code: -32602,
      message: 'method "server.add_peer" requires parameter "features"',
    });
    // Named as ElectrumX names it, any features: refused as a peer, not as a call.
    expect((await call("server.add_peer", { features: "x" })).result).toBe(false);
    expect((await call("server.peers.subscribe", [1])).error).toEqual({
      code: -32602,
      message: "1 argument passed to method server.peers.subscribe taking at most 0",
    });
    expect((await call("server.donation_address", { address: "x" })).error).toEqual({
      code: -32602,
      message: 'method "server.donation_address" does not take parameter "address"',
    });
    tls.end();
    await tls.closed;
    expect(askedOwn("regtest")).toEqual(before);
    const rows = await audit(id);
    expect(rows.every((r) => r[1] === 0)).toBe(true);
    expect(rows.filter((r) => r[2] === "rejected").map((r) => r[0])).toEqual([
      "server.add_peer",
      "server.add_peer",
      "server.add_peer",
      "server.peers.subscribe",
      "server.donation_address",
    ]);
  });
});

describe("server.* over WebSocket and HTTP", () => {
  it("a WebSocket session gets the same answers in one batch", async () => {
    const { token } = await t.account("ws-server", 1_000);
    const ws = new WebSocket(`${t.url.replace("http", "ws")}/electrum/regtest/${token}`);
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => resolve());
      ws.once("error", reject);
    });
    const answered = new Promise<unknown>((resolve) =>
      ws.once("message", (data) => resolve(JSON.parse(String(data)))),
    );
    ws.send(
      JSON.stringify([
        { jsonrpc: "2.0", id: 1, method: "server.donation_address", params: [] },
        { jsonrpc: "2.0", id: 2, method: "server.peers.subscribe", params: [] },
        { jsonrpc: "2.0", id: 3, method: "server.add_peer", params: [{}] },
        { jsonrpc: "2.0", id: 4, method: "server.features", params: [] },
      ]),
    );
    const answers = (await answered) as { id: number; result: unknown }[];
    ws.close();
    expect(answers.map((a) => [a.id, a.result])).toEqual([
      [1, DONATION],
      [2, []],
      [3, false],
      [4, expect.objectContaining({ hosts: { [`regtest.${SUFFIX}`]: { ssl_port: port } } })],
    ]);
  });

  it("over HTTP: answered, free, X-Credits-Charged 0", async () => {
    const { token } = await t.account("http-server", 1_000);
    const before = askedOwn("testnet");
    for (const [method, params, result] of [
      ["server.donation_address", [], ""],
      ["server.peers.subscribe", [], []],
      ["server.add_peer", [{ hosts: {} }], false],
    ] as const) {
      const res = await post(`${t.url}/electrum/testnet/${token}`, rpc(method, [...params]));
      expect(res.json).toEqual({ jsonrpc: "2.0", id: 1, result });
      expect(res.headers.get("x-credits-charged")).toBe("0");
    }
    expect(askedOwn("testnet")).toEqual(before);
  });
});
