// Checked answers on the Esplora route (src/upstreams/esplora/answer-check.ts): a transaction whose
// bytes do not hash to the txid asked is never served; with no honest server, an upstream error in
// the route's protocol, not charged. devnet's liar (src/devnet/liar/) stands in front of Core and
// Electrum only (test/verify/checked-answers.test.ts): here a tampering proxy stands in front of
// devnet's Esplora server.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Devnet, startDevnet } from "../../src/devnet/devnet.ts";
import { auditByOutcome } from "../support/audit.ts";
import { HAL_TXID, startTestGateway, type TestGateway } from "../support/harness.ts";
import { balanceOf } from "../support/ledger.ts";
import { startTamperingProxy, type TamperingProxy } from "../support/tampering-proxy.ts";

async function metricOf(t: TestGateway, name: string, upstream: string): Promise<number> {
  const metric = t.gateway.app.metrics.registry.getSingleMetric(name);
  const values = (await metric!.get()).values;
  return values.find((v) => v.labels.upstream === upstream)?.value ?? 0;
}

describe("an Esplora server that tampers, alone", () => {
  let devnet: Devnet;
  let esploraLiar: TamperingProxy;
  let t: TestGateway;
  beforeAll(async () => {
    devnet = await startDevnet(["mainnet"]);
    esploraLiar = await startTamperingProxy(devnet.esplora.get("mainnet")!.url);
    t = await startTestGateway(
      "pglite",
      {
        networks: ["mainnet"],
        cache: { bytesMax: 0, blockBytesMax: 0 },
        upstreams: {
          esplora: { mainnet: [{ url: esploraLiar.url }] },
        },
      },
      undefined,
      { devnet },
    );
  });
  afterAll(async () => {
    await t?.close();
    await esploraLiar?.close();
    await devnet?.close();
  });

  it("refuses a tampered Esplora /tx/:txid/hex and /raw with a 502, not charged", async () => {
    const { id, token } = await t.account("esplora", 10_000);
    const base = `${t.url}/esplora/mainnet/${token}/api`;
    const hex = await fetch(`${base}/tx/${HAL_TXID}/hex`);
    const raw = await fetch(`${base}/tx/${HAL_TXID}/raw`);
    expect([hex.status, raw.status]).toEqual([502, 502]);
    expect(await hex.text()).toContain("failed verification");
    const liarHost = new URL(esploraLiar.url).host;
    expect(
      await metricOf(t, "blockgate_upstream_unverified_total", liarHost),
    ).toBeGreaterThanOrEqual(2);
    const rows = await auditByOutcome(t.gateway.app.db, { accountId: id });
    expect(rows.every((r) => Number(r.charged) === 0)).toBe(true);
    expect((await balanceOf(t.gateway.app.db, id)).balance).toBe(10_000);
  });
});
