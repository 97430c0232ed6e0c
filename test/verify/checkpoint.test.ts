import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Devnet, startDevnet } from "../../src/devnet/devnet.ts";
import { BitcoinCoreClient } from "../../src/upstreams/bitcoin-core/client.ts";
import { ChainFollower } from "../../src/verify/chain/chain-follower.ts";
import { coreHeaders } from "../../src/verify/chain/upstream-headers.ts";
import type { Standing } from "../../src/verify/chain/upstream-verdict.ts";
import { coreCaller } from "../support/devnet-core.ts";

let devnet: Devnet;
let client: BitcoinCoreClient;

beforeAll(async () => {
  devnet = await startDevnet(["regtest"]);
  devnet.producers.get("regtest")!.mine(40);
  const core = devnet.cores.get("regtest")!;
  client = new BitcoinCoreClient({
    url: core.url,
    user: core.user,
    password: core.password,
    timeoutMs: 5_000,
    connections: 2,
  });
});

afterAll(async () => {
  await client?.close();
  await devnet?.close();
});

async function checkpointAt(height: number) {
  const call = coreCaller(devnet);
  const hash = (await call("getblockhash", [height], "regtest")).result as string;
  const header = (await call("getblockheader", [hash, true], "regtest")).result as {
    chainwork: string;
  };
  return { height, hash, chainwork: header.chainwork };
}

function follower(checkpoint: { height: number; hash: string; chainwork: string }) {
  const standings: Standing[] = [];
  const f = new ChainFollower("regtest", [coreHeaders(client)], {
    lagBlocksMax: 3,
    batchHeadersMax: 7,
    checkpoint,
    onStanding: (_, s) => standings.push(s),
    onError: (err) => {
      throw err;
    },
  });
  return { f, standings };
}

describe("a verified chain from a checkpoint", () => {
  it("keeps the checkpoint's context, with Core's chainwork, and verifies on from it", async () => {
    const c = await checkpointAt(25);
    const { f, standings } = follower(c);
    expect(f.tip()).toBeUndefined();
    await f.synced(5_000);
    expect(f.tip()!.height).toBe(40);
    expect(f.atHeight(25)!.hash).toBe(c.hash);
    expect(f.atHeight(25)!.chainwork.toString(16).padStart(64, "0")).toBe(c.chainwork);
    // Its difficulty period from the first block (regtest's first period starts at genesis).
    expect(f.tree.lowest).toBe(0);
    const tip = await checkpointAt(40);
    expect(f.tip()!.chainwork.toString(16).padStart(64, "0")).toBe(tip.chainwork);
    expect(standings).toEqual([{ status: "consistent", height: 40 }]);
  });

  it("an upstream whose chain does not hash up to the checkpoint is inconsistent; nothing is kept", async () => {
    const c = { ...(await checkpointAt(25)), hash: (await checkpointAt(24)).hash };
    const { f, standings } = follower(c);
    await f.look();
    await f.look();
    expect(f.tip()).toBeUndefined();
    expect(standings).toEqual([
      { status: "inconsistent", reason: "its chain has no header hashing to the checkpoint" },
    ]);
  });
});
