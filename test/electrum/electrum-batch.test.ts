// The pool's JSON-RPC batches to an Electrum server: one message each way, an outcome per call.
import { once } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ElectrumUpstreamConfig } from "../../src/config/schema.ts";
import { type Devnet, startDevnet } from "../../src/devnet/devnet.ts";
import { ElectrumPool } from "../../src/upstreams/electrum/pool.ts";
import { HAL_TXID } from "../support/harness.ts";

const settings = (url: string, lineBytesMax: number): ElectrumUpstreamConfig => ({
  url,
  timeoutMs: 5_000,
  connectTimeoutMs: 2_000,
  connections: 1,
  inFlightMax: 100,
  lineBytesMax,
  pingIntervalMs: 60_000,
  reconnectMaxMs: 1_000,
  tlsVerify: true,
});

let devnet: Devnet;
beforeAll(async () => {
  devnet = await startDevnet(["mainnet"]);
});
afterAll(() => devnet.close());

const server = () => devnet.electrum.get("mainnet")!;

async function openPool(lineBytesMax: number) {
  const pool = new ElectrumPool([settings(server().url, lineBytesMax)]);
  const connected = once(pool.upstreams[0]!, "connected");
  pool.start();
  await connected;
  return pool;
}

describe("Electrum batches", () => {
  it("go as one message, each call with its own answer or the server's refusal", async () => {
    const pool = await openPool(16 * 1024 * 1024);
    try {
      const { messages, requests } = { ...server().stats };
      const out = await pool.batch([
        { method: "blockchain.transaction.get", params: [HAL_TXID] },
        { method: "blockchain.nonsense", params: [] },
        { method: "server.ping", params: [] },
      ]);
      expect(server().stats.messages - messages).toBe(1);
      expect(server().stats.requests - requests).toBe(3);
      expect(out[0]).toMatchObject({ ok: true, answer: { result: expect.stringMatching(/^01/) } });
      expect(out[1]).toMatchObject({ ok: true, answer: { error: { code: -32601 } } });
      expect(out[2]).toMatchObject({ ok: true, answer: { result: null } });
    } finally {
      await pool.close();
    }
  });

  it("an answer line over lineBytesMax fails every call of its batch at once; the connection stays", async () => {
    // One transaction's answer fits; two in one line do not.
    const pool = await openPool(1_000);
    try {
      const call = { method: "blockchain.transaction.get", params: [HAL_TXID] };
      expect((await pool.request(call.method, call.params)).ok).toBe(true);
      const { connections } = server().stats;
      const out = await pool.batch([call, { ...call, params: [HAL_TXID, false] }]);
      for (const o of out)
        expect(o).toMatchObject({ ok: false, error: { code: "RESPONSE_TOO_LARGE" } });
      expect((await pool.request("server.ping", [])).ok).toBe(true);
      expect(server().stats.connections).toBe(connections);
    } finally {
      await pool.close();
    }
  });
});
