// Very large answers on the Electrum route: a server's line over lineBytesMax is skipped as it
// comes and answers its own request RESPONSE_TOO_LARGE, the connection going on; a request's
// answers over server.responseBytesMax are not passed on. Both in aiorpcx's words (ElectrumX's
// library), which Electrum clients know: -32600 "response too large (over N bytes"; both charged
// as answered (the server did the work), logged once, the server's breaker untouched.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditRecords } from "../support/audit.ts";
import { type ScriptedPeer, startScriptedElectrum } from "../support/electrum-peer.ts";
import { HAL_TXID, post, rpc, startTestGateway, type TestGateway } from "../support/harness.ts";
import { expectLedgerOk } from "../support/ledger.ts";

const LINE_MAX = 64 * 1024;
const HISTORY = "blockchain.scripthash.get_history";
const PRICE = 200; // get_history on mainnet
/** Script hashes whose histories are too long: the server writes the id last, or first. */
const ID_LAST = "ab".repeat(32);
const ID_FIRST = "ac".repeat(32);

/** A history of `entries` items: some 90 bytes each. */
const history = (entries: number) =>
  Array.from({ length: entries }, (_, i) => ({ tx_hash: "cd".repeat(32), height: i }));

describe("a server's answer over lineBytesMax", () => {
  let peer: ScriptedPeer;
  let t: TestGateway;
  let token: string;
  beforeAll(async () => {
    // ElectrumX writes the id last; Fulcrum and electrs first: both are told apart.
    peer = await startScriptedElectrum((method, params, id) => {
      if (method !== HISTORY) return JSON.stringify({ jsonrpc: "2.0", result: 1, id });
      const result = history(params[0] === ID_LAST || params[0] === ID_FIRST ? 2_000 : 10);
      return params[0] === ID_FIRST
        ? JSON.stringify({ id, jsonrpc: "2.0", result })
        : `{"jsonrpc": "2.0", "result": ${JSON.stringify(result)}, "id": ${id}}`;
    });
    t = await startTestGateway("pglite", {
      networks: ["mainnet"],
      upstreams: {
        node: { mainnet: ["devnet"] },
        electrum: {
          mainnet: [
            { url: peer.url, lineBytesMax: LINE_MAX },
            { url: peer.url, lineBytesMax: LINE_MAX },
          ],
        },
      },
      failover: { hedge: { enabled: false } },
    });
    ({ token } = await t.account("lines", 100_000));
    // Every connection (two members, two each) identified before any is counted.
    await new Promise<void>((resolve) => {
      const check = () => {
        if (versions() < 4) return;
        peer.events.off("request", check);
        resolve();
      };
      peer.events.on("request", check);
      check();
    });
  });
  afterAll(async () => {
    await t.close();
    await peer.close();
  });

  const versions = () => peer.methods.filter((m) => m === "server.version").length;
  function ask(params: unknown[]) {
    return post(`${t.url}/electrum/mainnet/${token}`, rpc(HISTORY, params));
  }

  it.each([
    ["last (ElectrumX)", [ID_LAST]],
    ["first (Fulcrum, electrs)", [ID_FIRST]],
  ])("with its id %s: -32600 in aiorpcx's words, charged, logged once", async (_how, params) => {
    const connections = versions();
    const asked = peer.methods.filter((m) => m === HISTORY).length;
    const res = await ask(params);
    expect(res.status).toBe(200);
    expect((res.json as { error: unknown }).error).toEqual({
      code: -32600,
      message: "response too large (over 65,536 bytes",
    });
    expect(res.headers.get("x-credits-charged")).toBe(String(PRICE));
    // Asked once (no retry on the second member), on the same connection (not dropped).
    expect(peer.methods.filter((m) => m === HISTORY).length - asked).toBe(1);
    expect(versions()).toBe(connections);
    const requestId = res.headers.get("x-request-id");
    const lines = t.logs.filter(
      (l) => l.includes(`"requestId":"${requestId}"`) && !l.includes('"msg":"request"'),
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/"level":30/);
    const rows = await auditRecords(t.gateway.app.db, { requestId: requestId }, [
      "outcome",
      "error_code",
      "upstream_code",
      "charged_cc",
    ]);
    expect(rows).toEqual([
      {
        outcome: "too_large",
        error_code: "RESPONSE_TOO_LARGE",
        upstream_code: "-32600",
        charged_cc: PRICE,
      },
    ]);
  });

  it("the connection goes on answering, the server's breakers closed", async () => {
    const res = await ask(["ef".repeat(32)]);
    expect(res.status).toBe(200);
    expect((res.json as { result: unknown[] }).result).toHaveLength(10);
    const pool = t.gateway.app.electrum.get("mainnet")!;
    const ready = (await pool.health({ timeoutMs: 1_000, cacheMs: 0 })).members;
    expect(ready.every((m) => m.status === "up")).toBe(true);
  });
});

describe("a request's answers over server.responseBytesMax", () => {
  let t: TestGateway;
  let token: string;
  let accountId: number;
  beforeAll(async () => {
    t = await startTestGateway("pglite", {
      networks: ["mainnet"],
      server: { responseBytesMax: 100_000 },
      upstreams: { node: { mainnet: ["devnet"] }, electrum: { mainnet: ["devnet"] } },
    });
    ({ token, id: accountId } = await t.account("budget", 100_000));
  });
  afterAll(() => t.close());

  // 170,363 bytes (block 702861): 340,726 hex digits.
  const BIG = "2a570190f8c8bda77f44e7baf5e48e301c2e89a0efe7a1f25d9a8a8a3a0ed756";

  it("every answered call gets RESPONSE_TOO_LARGE, each charged; the others answer as always", async () => {
    const res = await post(`${t.url}/electrum/mainnet/${token}`, [
      rpc("blockchain.transaction.get", [HAL_TXID], 1),
      rpc("blockchain.transaction.get", [BIG], 2),
      rpc("nosuch.method", [], 3),
    ]);
    expect(res.status).toBe(200);
    const items = res.json as { id: number; error: { code: number; message: string } }[];
    const tooLarge = { code: -32600, message: "response too large (over 100,000 bytes" };
    expect(items[0]!.error).toEqual(tooLarge);
    expect(items[1]!.error).toEqual(tooLarge);
    expect(items[2]!.error).toEqual({ code: -32601, message: 'unknown method "nosuch.method"' });
    expect(res.headers.get("x-credits-charged")).toBe("200");
    const small = await post(
      `${t.url}/electrum/mainnet/${token}`,
      rpc("blockchain.transaction.get", [HAL_TXID]),
    );
    expect(typeof (small.json as { result: unknown }).result).toBe("string");
  });

  it("the ledger checks out", async () => {
    await expectLedgerOk(t.gateway.app.db, accountId);
  });
});
