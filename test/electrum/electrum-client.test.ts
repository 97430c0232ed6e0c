import { execFile } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync } from "node:fs";
import { type AddressInfo, connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer as createTlsServer, type Server as TlsServer } from "node:tls";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ElectrumUpstreamConfig } from "../../src/config/schema.ts";
import { type Devnet, startDevnet } from "../../src/devnet/devnet.ts";
import { ElectrumUpstream } from "../../src/upstreams/electrum/client.ts";
import { ElectrumPool } from "../../src/upstreams/electrum/pool.ts";
import { startScriptedElectrum } from "../support/electrum-peer.ts";
import { HAL_TXID } from "../support/harness.ts";

const run = promisify(execFile);

const settings = (
  url: string,
  extra: Partial<ElectrumUpstreamConfig> = {},
): ElectrumUpstreamConfig => ({
  url,
  timeoutMs: 2_000,
  connectTimeoutMs: 2_000,
  connections: 1,
  inFlightMax: 100,
  lineBytesMax: 16 * 1024 * 1024,
  pingIntervalMs: 60_000,
  reconnectMaxMs: 1_000,
  tlsVerify: true,
  ...extra,
});

let devnet: Devnet;
beforeAll(async () => {
  devnet = await startDevnet(["mainnet"], { electrum: { idleTimeoutMs: 400 } });
});
afterAll(() => devnet.close());

const server = () => devnet.electrum.get("mainnet")!;

describe("Electrum client", () => {
  it("keeps an idle connection alive with server.ping inside the server's idle timeout", async () => {
    const upstream = new ElectrumUpstream(settings(server().url, { pingIntervalMs: 100 }));
    const connected = once(upstream, "connected");
    upstream.start();
    await connected;
    const connections = server().stats.connections;
    // Ten pings span well over the server's 400 ms idle limit.
    let pings = 0;
    await new Promise<void>((resolve) => {
      const onRequest = (method: string) => {
        if (method === "server.ping" && ++pings === 10) {
          server().events.off("request", onRequest);
          resolve();
        }
      };
      server().events.on("request", onRequest);
    });
    expect(upstream.connected).toBe(true);
    expect(server().stats.connections).toBe(connections);
    const out = await upstream.request("blockchain.transaction.get", [HAL_TXID]);
    expect(out.ok && "result" in out.answer).toBe(true);
    upstream.close();
  });

  it("bounds requests in flight per connection, and times each one out", async () => {
    const silent = await startScriptedElectrum(() => null);
    const upstream = new ElectrumUpstream(settings(silent.url, { inFlightMax: 2, timeoutMs: 300 }));
    const connected = once(upstream, "connected");
    upstream.start();
    await connected;
    const started = performance.now();
    const timed = (_n: number) =>
      upstream
        .request("blockchain.transaction.get", [HAL_TXID])
        .then((o) => ({ code: o.ok ? "answer" : o.error.code, ms: performance.now() - started }));
    const [first, second, third] = await Promise.all([timed(1), timed(2), timed(3)]);
    // The third is over the bound: refused at once (retryable), not queued.
    expect(third!.code).toBe("UPSTREAM_UNAVAILABLE");
    expect(third!.ms).toBeLessThan(250);
    // The first times out; the silence since it was sent marks the connection dead, so the second
    // either times out too or fails with the dropped connection — either way by the deadline.
    expect(first!.code).toBe("UPSTREAM_TIMEOUT");
    expect(["UPSTREAM_TIMEOUT", "UPSTREAM_UNAVAILABLE"]).toContain(second!.code);
    for (const o of [first!, second!]) {
      expect(o.ms).toBeGreaterThanOrEqual(290);
      expect(o.ms).toBeLessThan(1_300);
    }
    upstream.close();
    await silent.close();
  });

  it("fails every pending request when the connection drops", async () => {
    const silent = await startScriptedElectrum(() => null);
    const upstream = new ElectrumUpstream(settings(silent.url, { timeoutMs: 60_000 }));
    const connected = once(upstream, "connected");
    upstream.start();
    await connected;
    let received = 0;
    const allReceived = new Promise<void>((resolve) =>
      silent.events.on("request", (m: string) => {
        if (m === "blockchain.transaction.get" && ++received === 3) resolve();
      }),
    );
    const pending = [1, 2, 3].map(() => upstream.request("blockchain.transaction.get", [HAL_TXID]));
    await allReceived;
    await silent.close();
    const outcomes = await Promise.all(pending);
    expect(
      outcomes.every((o) => !o.ok && o.retryable && o.error.code === "UPSTREAM_UNAVAILABLE"),
    ).toBe(true);
    upstream.close();
  });

  it("a pool fails over from a server that refuses connections", async () => {
    const closed = await startScriptedElectrum(() => null);
    const deadUrl = closed.url;
    await closed.close();
    const pool = new ElectrumPool([settings(deadUrl), settings(server().url)]);
    pool.start();
    for (let i = 0; i < 3; i++) {
      const out = await pool.request("blockchain.transaction.get", [HAL_TXID]);
      expect(out.ok && out.upstream).toBe(server().url.replace("tcp://", ""));
    }
    await pool.close();
  });
});

describe("Electrum client over TLS (ssl:// and tls:// URLs)", () => {
  let tlsServer: TlsServer;
  let port: number;
  let caFile: string;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), "bg-tls-"));
    caFile = join(dir, "cert.pem");
    const keyFile = join(dir, "key.pem");
    await run("openssl", [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-days",
      "1",
      "-subj",
      "/CN=127.0.0.1",
      "-addext",
      "subjectAltName=IP:127.0.0.1",
      "-keyout",
      keyFile,
      "-out",
      caFile,
    ]);
    // TLS in front of devnet's TCP server, as ElectrumX's SSL port sits in front of its sessions.
    tlsServer = createTlsServer(
      { key: readFileSync(keyFile), cert: readFileSync(caFile) },
      (tls) => {
        const plain = connect(server().port, "127.0.0.1");
        tls.pipe(plain).pipe(tls);
        tls.on("error", () => plain.destroy());
        plain.on("error", () => tls.destroy());
      },
    );
    await new Promise<void>((resolve) => tlsServer.listen(0, "127.0.0.1", resolve));
    port = (tlsServer.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => tlsServer.close(() => resolve())));

  it.each(["ssl", "tls"])("%s:// with the server's certificate as CA: answers", async (scheme) => {
    const upstream = new ElectrumUpstream(settings(`${scheme}://127.0.0.1:${port}`, { caFile }));
    upstream.start();
    const out = await upstream.request("blockchain.transaction.get", [HAL_TXID]);
    expect(
      out.ok && "result" in out.answer && String(out.answer.result).startsWith("0100000001c997"),
    ).toBe(true);
    upstream.close();
  });

  it("an untrusted certificate is refused unless verification is turned off", async () => {
    const strict = new ElectrumUpstream(settings(`ssl://127.0.0.1:${port}`));
    strict.start();
    const refused = await strict.request("server.ping", []);
    expect(!refused.ok && refused.error.code).toBe("UPSTREAM_UNAVAILABLE");
    strict.close();
    const lax = new ElectrumUpstream(settings(`ssl://127.0.0.1:${port}`, { tlsVerify: false }));
    lax.start();
    const out = await lax.request("server.ping", []);
    expect(out.ok && out.answer).toEqual({ result: null });
    lax.close();
  });
});
