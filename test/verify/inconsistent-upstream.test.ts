import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Devnet, startDevnet } from "../../src/devnet/devnet.ts";
import { type Liar, startLiar } from "../../src/devnet/liar/liar.ts";
import type { VerificationReport } from "../../src/verify/chain/verified-chain-set.ts";
import {
  electrumConnected,
  post,
  rpc,
  startTestGateway,
  type TestGateway,
} from "../support/harness.ts";
import { operatorCredential } from "../support/operator.ts";

const operator = operatorCredential();
let devnet: Devnet;
let liar: Liar;
let t: TestGateway;
let token: string;

beforeAll(async () => {
  devnet = await startDevnet(["regtest"]);
  devnet.producers.get("regtest")!.mine(12);
  liar = await startLiar(devnet, "regtest");
  t = await startTestGateway(
    "pglite",
    {
      networks: ["regtest"],
      operator: { tokenSha256: [operator.sha256] },
      verification: { enabled: true, pollMs: 60_000 },
      upstreams: {
        node: { regtest: ["devnet", { ...liar.core }] },
        electrum: { regtest: ["devnet", { url: liar.electrum.url }] },
      },
    },
    undefined,
    { devnet },
  );
  await electrumConnected(t, "regtest");
  ({ token } = await t.account("verify", 1_000_000));
});

afterAll(async () => {
  await t?.close();
  await liar?.close();
  await devnet?.close();
});

const name = (url: string) => new URL(url.replace(/^tcp:/, "http:")).host;
const chain = () => t.gateway.app.verifiedChains.get("regtest")!;

/** The liar's two upstreams as /readyz and /metrics show them. */
async function liarStanding() {
  await chain().synced(5_000);
  const ready = (await (await fetch(`${t.url}/readyz`)).json()) as {
    status: string;
    verification: { regtest: VerificationReport };
    upstreams: { node: { regtest: { members: { name: string; inconsistent?: string }[] } } };
  };
  const metrics = await (await fetch(`${t.url}/metrics`, { headers: operator.headers })).text();
  const liars = [name(liar.core.url), name(liar.electrum.url)];
  const gauge = (backend: string, upstream: string) =>
    metrics
      .split("\n")
      .find((l) =>
        l.startsWith(
          `blockgate_upstream_inconsistent{backend="${backend}",network="regtest",upstream="${upstream}"}`,
        ),
      )
      ?.split(" ")[1];
  return {
    ready,
    upstreams: ready.verification.regtest.upstreams.filter((u) => liars.includes(u.name)),
    honest: ready.verification.regtest.upstreams.filter((u) => !liars.includes(u.name)),
    gauges: [gauge("node", liars[0]!), gauge("electrum", liars[1]!)],
    member: ready.upstreams.node.regtest.members.find((m) => m.name === liars[0]),
  };
}

/** getblockcount through the node route, as many times as there are members and more. */
async function counts(n = 4): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const res = await post(`${t.url}/node/regtest/${token}`, rpc("getblockcount", []));
    out.push((res.json as { result: number }).result);
  }
  return out;
}

describe("an upstream that lies about the chain", () => {
  it("is consistent while it tells the truth", async () => {
    const s = await liarStanding();
    expect(s.upstreams.map((u) => u.status)).toEqual(["consistent", "consistent"]);
    expect(s.gauges).toEqual(["0", "0"]);
    expect(s.ready.status).toBe("ready");
  });

  it("serving a shorter chain: held out, named in metrics and /readyz; the pool answers from the honest node", async () => {
    liar.set({ shorterBy: 5 });
    const s = await liarStanding();
    expect(s.upstreams.map((u) => u.status)).toEqual(["inconsistent", "inconsistent"]);
    expect(s.upstreams[0]!.reason).toBe(
      "its chain has less work than the verified chain (tip 7, 5 below 12)",
    );
    expect(s.honest.map((u) => u.status)).toEqual(["consistent", "consistent"]);
    expect(s.gauges).toEqual(["1", "1"]);
    expect(s.member?.inconsistent).toBe(s.upstreams[0]!.reason);
    expect(s.ready.status).toBe("degraded");
    expect(await counts()).toEqual([12, 12, 12, 12]);
    // The Electrum pool too: the liar would refuse height 12 as out of range.
    for (let i = 0; i < 4; i++) {
      const res = await post(
        `${t.url}/electrum/regtest/${token}`,
        rpc("blockchain.block.header", [12], i),
      );
      expect((res.json as { result: string }).result).toMatch(/^[0-9a-f]{160}$/);
    }
    expect(t.logs.join("")).toContain("upstream held out");
    expect(chain().tip()!.height).toBe(12);
  });

  it("put back once it agrees again", async () => {
    liar.set({});
    const s = await liarStanding();
    expect(s.upstreams.map((u) => u.status)).toEqual(["consistent", "consistent"]);
    expect(s.gauges).toEqual(["0", "0"]);
    expect(s.member?.inconsistent).toBeUndefined();
    expect(t.logs.join("")).toContain("upstream put back");
    // Round robin reaches the liar again: it now answers as the honest node does.
    expect(await counts()).toEqual([12, 12, 12, 12]);
  });

  it("a chain behind by no more than the lag allowance is not held out", async () => {
    liar.set({ shorterBy: 3 });
    const s = await liarStanding();
    expect(s.upstreams.map((u) => u.status)).toEqual(["consistent", "consistent"]);
  });

  for (const [kind, reason] of [
    ["bits", "bad-diffbits"],
    ["time", "time-too-old"],
    ["pow", "high-hash"],
  ] as const) {
    it(`serving an invalid header (${kind}): held out with Core's reason; the verified tip stays`, async () => {
      liar.set({ invalidHeaders: { kind } });
      const s = await liarStanding();
      expect(s.upstreams.map((u) => u.status)).toEqual(["inconsistent", "inconsistent"]);
      expect(s.upstreams[0]!.reason).toBe(`it served an invalid header: ${reason} at height 12`);
      expect(chain().tip()!.hash).toBe(devnet.producers.get("regtest")!.chain.tip.block.hash);
      expect(await counts()).toEqual([12, 12, 12, 12]);
      liar.set({});
      expect((await liarStanding()).upstreams.map((u) => u.status)).toEqual([
        "consistent",
        "consistent",
      ]);
    });
  }

  it("an invalid branch from deeper down is refused at its first header", async () => {
    liar.set({ invalidHeaders: { kind: "bits", fromHeight: 9 } });
    const s = await liarStanding();
    expect(s.upstreams[0]!.reason).toBe("it served an invalid header: bad-diffbits at height 9");
    liar.set({});
    await liarStanding();
  });
});
