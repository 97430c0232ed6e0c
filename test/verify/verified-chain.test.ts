import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NetworkName } from "../../src/config/schema.ts";
import { startDevnet } from "../../src/devnet/devnet.ts";
import { coreCaller } from "../support/devnet-core.ts";
import { electrumConnected, startTestGateway, type TestGateway } from "../support/harness.ts";

const NETWORKS: NetworkName[] = ["regtest", "testnet", "testnet4", "signet"];

let t: TestGateway;
let call: ReturnType<typeof coreCaller>;

beforeAll(async () => {
  const devnet = await startDevnet(NETWORKS);
  devnet.producers.get("regtest")!.mine(30);
  call = coreCaller(devnet);
  t = await startTestGateway(
    "pglite",
    {
      networks: NETWORKS,
      verification: { enabled: true, pollMs: 60_000 },
      // The chain events follow the verified chain: they poll only when it moves.
      events: { pollMs: 60_000 },
    },
    undefined,
    { devnet },
  );
  for (const n of NETWORKS) await electrumConnected(t, n);
});

afterAll(async () => {
  await t?.close();
  await t?.devnet.close();
});

/** Core's best chain, every header of it: hash, raw header and chainwork. */
async function coreChain(network: NetworkName) {
  const best = (await call("getbestblockhash", [], network)).result as string;
  const tip = (await call("getblockheader", [best, true], network)).result as { height: unknown };
  const height = Number(String(tip.height));
  const out: { hash: string; header: string; chainwork: string }[] = [];
  for (let h = 0; h <= height; h++) {
    const hash = (await call("getblockhash", [h], network)).result as string;
    const header = (await call("getblockheader", [hash, false], network)).result as string;
    const verbose = (await call("getblockheader", [hash, true], network)).result as {
      chainwork: string;
    };
    out.push({ hash, header, chainwork: verbose.chainwork });
  }
  return out;
}

async function expectSameAsCore(network: NetworkName) {
  const chain = t.gateway.app.verifiedChains.get(network)!;
  await chain.synced(5_000);
  const core = await coreChain(network);
  expect(chain.tip()!.height).toBe(core.length - 1);
  for (const [height, c] of core.entries()) {
    const v = chain.atHeight(height)!;
    expect(v.hash).toBe(c.hash);
    expect(v.header).toBe(c.header);
    expect(v.chainwork.toString(16).padStart(64, "0")).toBe(c.chainwork);
    expect(chain.byHash(c.hash)).toBe(v);
  }
}

describe("the verified chain of every devnet network", () => {
  it("is Core's chain, header for header, with Core's chainwork", async () => {
    for (const network of NETWORKS) await expectSameAsCore(network);
    expect(t.gateway.app.verifiedChains.get("regtest")!.tip()!.height).toBe(30);
    // Mainnet is not verified without a checkpoint (devnet does not even serve it here).
    expect(t.gateway.app.verifiedChains.get("mainnet")).toBeUndefined();
  });

  it("moves with a reorganisation as Core's does", async () => {
    const chain = t.gateway.app.verifiedChains.get("regtest")!;
    const before = chain.atHeight(30)!;
    const change = t.devnet.producers.get("regtest")!.reorg(2);
    if ("refused" in change) throw new Error(change.refused);
    await expectSameAsCore("regtest");
    expect(chain.tip()!.height).toBe(31);
    expect(chain.byHash(before.hash)).toBeUndefined();
    expect(change.disconnected.map((b) => chain.byHash(b.hash))).toEqual([undefined, undefined]);
    expect(change.connected.map((b) => chain.byHash(b.hash)?.height)).toEqual([29, 30, 31]);
  });

  it("is what the chain events announce, reorganisation included", async () => {
    const seen: string[] = [];
    let heard: () => void = () => {};
    const stop = t.gateway.app.events.subscribe("regtest", (e) => {
      seen.push(`${e.kind} ${e.height} ${e.hash}`);
      if (seen.length === 3) heard();
    });
    const all = new Promise<void>((resolve) => {
      heard = resolve;
    });
    const change = t.devnet.producers.get("regtest")!.reorg(1);
    if ("refused" in change) throw new Error(change.refused);
    await all;
    stop();
    const chain = t.gateway.app.verifiedChains.get("regtest")!;
    expect(seen).toEqual([
      `disconnected 31 ${change.disconnected[0]!.hash}`,
      `connected 31 ${chain.atHeight(31)!.hash}`,
      `connected 32 ${chain.atHeight(32)!.hash}`,
    ]);
    expect(chain.tip()!.hash).toBe(change.tip.hash);
  });

  it("announces a block asked for now at once, not at the verified chain's next poll", async () => {
    const seen: number[] = [];
    const stop = t.gateway.app.events.subscribe("regtest", (e) => seen.push(e.height));
    const before = t.gateway.app.verifiedChains.get("regtest")!.tip()!.height;
    t.devnet.producers.get("regtest")!.mine(1);
    await t.gateway.app.events.pollNow("regtest");
    stop();
    expect(seen).toContain(before + 1);
  });

  it("counts every upstream consistent and shows it in /readyz", async () => {
    const res = await fetch(`${t.url}/readyz`);
    const body = (await res.json()) as {
      verification: Record<string, { tip: { height: number }; upstreams: { status: string }[] }>;
    };
    expect(Object.keys(body.verification).sort()).toEqual([...NETWORKS].sort());
    expect(body.verification.regtest!.tip.height).toBe(33);
    for (const n of NETWORKS) {
      expect(body.verification[n]!.upstreams.map((u) => u.status)).toEqual([
        "consistent",
        "consistent",
      ]);
    }
  });
});
