// Checked answers (src/upstreams/answer-check.ts): an upstream whose transaction or header bytes
// do not hash to what was asked is never served. With an honest upstream beside it the call goes
// there; with none, an upstream error in the route's protocol, not charged. The liar is a
// tampering proxy in front of devnet's own servers.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Devnet, startDevnet } from "../../src/devnet/devnet.ts";
import { auditByOutcome } from "../support/audit.ts";
import {
  askDevnetCore,
  BLOCK_170,
  blockTxids,
  HAL_TXID,
  post,
  rpc,
  startTestGateway,
  type TestGateway,
} from "../support/harness.ts";
import { balanceOf } from "../support/ledger.ts";
import { startTamperingProxy, type TamperingProxy } from "../support/tampering-proxy.ts";

const TXIDS = blockTxids().slice(0, 12);

async function metricOf(t: TestGateway, name: string, upstream: string): Promise<number> {
  const metric = t.gateway.app.metrics.registry.getSingleMetric(name);
  const values = (await metric!.get()).values;
  return values.find((v) => v.labels.upstream === upstream)?.value ?? 0;
}

describe("a node that tampers with transaction bytes, beside an honest one", () => {
  let devnet: Devnet;
  let liar: TamperingProxy;
  let t: TestGateway;
  beforeAll(async () => {
    devnet = await startDevnet(["mainnet"]);
    const core = devnet.cores.get("mainnet")!;
    liar = await startTamperingProxy(core.url);
    t = await startTestGateway(
      "pglite",
      {
        networks: ["mainnet"],
        cache: { bytesMax: 0, blockBytesMax: 0 },
        upstreams: {
          node: {
            mainnet: [{ url: liar.url, user: core.user, password: core.password }, "devnet"],
          },
        },
        failover: { hedge: { enabled: false } },
      },
      undefined,
      { devnet },
    );
  });
  afterAll(async () => {
    await t?.close();
    await liar?.close();
    await devnet?.close();
  });

  it("serves every transaction from the honest node, each charged once", async () => {
    const { id, token } = await t.account("honest", 1_000_000);
    const url = `${t.url}/node/mainnet/${token}`;
    for (const [i, txid] of TXIDS.entries()) {
      const verbose = i % 2 === 1;
      const res = await post(url, rpc("getrawtransaction", [txid, verbose], i));
      const direct = JSON.parse(await askDevnetCore(devnet, "getrawtransaction", [txid, verbose]));
      expect({ status: res.status, result: (res.json as { result: unknown }).result }).toEqual({
        status: 200,
        result: direct.result,
      });
    }
    expect(liar.tampered).toBeGreaterThan(0);
    const liarHost = new URL(liar.url).host;
    expect(await metricOf(t, "blockgate_upstream_unverified_total", liarHost)).toBe(liar.tampered);
    const rows = await auditByOutcome(t.gateway.app.db, { accountId: id });
    expect(rows).toEqual([{ outcome: "ok", n: TXIDS.length, charged: TXIDS.length * 200 }]);
  });
});

describe("a node that tampers, alone", () => {
  let devnet: Devnet;
  let liar: TamperingProxy;
  let esploraLiar: TamperingProxy;
  let t: TestGateway;
  beforeAll(async () => {
    devnet = await startDevnet(["mainnet"]);
    const core = devnet.cores.get("mainnet")!;
    liar = await startTamperingProxy(core.url);
    esploraLiar = await startTamperingProxy(devnet.esplora.get("mainnet")!.url);
    t = await startTestGateway(
      "pglite",
      {
        networks: ["mainnet"],
        cache: { bytesMax: 0, blockBytesMax: 0 },
        upstreams: {
          node: { mainnet: [{ url: liar.url, user: core.user, password: core.password }] },
          esplora: { mainnet: [{ url: esploraLiar.url }] },
        },
      },
      undefined,
      { devnet },
    );
  });
  afterAll(async () => {
    await t?.close();
    await liar?.close();
    await esploraLiar?.close();
    await devnet?.close();
  });

  it("refuses with UPSTREAM_BAD_RESPONSE on the node route, and charges nothing", async () => {
    const { id, token } = await t.account("alone", 10_000);
    const url = `${t.url}/node/mainnet/${token}`;
    const tx = await post(url, rpc("getrawtransaction", [HAL_TXID, true]));
    const header = await post(url, rpc("getblockheader", [BLOCK_170, false], 2));
    const count = await post(url, rpc("getblockcount", [], 3));
    for (const res of [tx, header]) {
      expect({ status: res.status, error: (res.json as { error: unknown }).error }).toEqual({
        status: 502,
        error: {
          code: -32022,
          message: "the full node sent an answer that failed verification",
          data: expect.objectContaining({ code: "UPSTREAM_BAD_RESPONSE" }),
        },
      });
    }
    expect(count.status).toBe(200);
    const rows = await auditByOutcome(t.gateway.app.db, { accountId: id });
    expect(rows.find((r) => r.outcome === "ok")).toMatchObject({ n: 1 });
    expect((await balanceOf(t.gateway.app.db, id)).balance).toBe(
      10_000 - rows.reduce((sum, r) => sum + Number(r.charged), 0),
    );
    expect(rows.filter((r) => r.outcome !== "ok").every((r) => Number(r.charged) === 0)).toBe(true);
  });

  it("refuses a tampered Esplora /tx/:txid/hex and /raw with a 502, not charged", async () => {
    const { id, token } = await t.account("esplora", 10_000);
    const base = `${t.url}/esplora/mainnet/${token}/api`;
    const hex = await fetch(`${base}/tx/${HAL_TXID}/hex`);
    const raw = await fetch(`${base}/tx/${HAL_TXID}/raw`);
    expect([hex.status, raw.status]).toEqual([502, 502]);
    expect(await hex.text()).toContain("failed verification");
    const rows = await auditByOutcome(t.gateway.app.db, { accountId: id });
    expect(rows.every((r) => Number(r.charged) === 0)).toBe(true);
    expect((await balanceOf(t.gateway.app.db, id)).balance).toBe(10_000);
  });
});
