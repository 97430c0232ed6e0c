import { once } from "node:events";
import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { electrumScripthash } from "../../src/bitcoin/scripthash.ts";
import { type BlockProducer, DEVNET_PAYOUT } from "../../src/devnet/block-producer.ts";
import { startBlockTimer } from "../../src/devnet/block-timer.ts";
import type { DevnetChain } from "../../src/devnet/chain.ts";
import { type Devnet, startDevnet } from "../../src/devnet/devnet.ts";
import { coreCaller, someAddress } from "../support/devnet-core.ts";

/** A session on devnet's regtest ElectrumX, subscribed to headers: calls, and each pushed tip. */
async function electrumSession(devnet: Devnet) {
  const server = devnet.electrum.get("regtest")!;
  const socket: Socket = connect(server.port, server.host);
  await once(socket, "connect");
  const answers = new Map<number, unknown>();
  const pushes: { height: number; hex: string }[] = [];
  const waiters: (() => void)[] = [];
  let buffered = "";
  socket.setEncoding("utf8").on("data", (chunk: string) => {
    buffered += chunk;
    for (let nl = buffered.indexOf("\n"); nl >= 0; nl = buffered.indexOf("\n")) {
      const m = JSON.parse(buffered.slice(0, nl)) as {
        id?: number;
        result?: unknown;
        method?: string;
        params?: unknown[];
      };
      buffered = buffered.slice(nl + 1);
      if (m.method === "blockchain.headers.subscribe")
        pushes.push(m.params![0] as { height: number; hex: string });
      else answers.set(m.id!, m.result);
    }
    for (const wake of waiters.splice(0)) wake();
  });
  const until = async (ready: () => boolean) => {
    while (!ready()) await new Promise<void>((r) => waiters.push(r));
  };
  let nextId = 0;
  const call = async (method: string, params: unknown[] = []) => {
    const id = ++nextId;
    socket.write(`${JSON.stringify({ id, method, params })}\n`);
    await until(() => answers.has(id));
    return answers.get(id);
  };
  await call("server.version", ["t", "1.4"]);
  await call("blockchain.headers.subscribe");
  /** The n-th pushed tip (0-based), once it has come. */
  const pushed = async (n: number) => {
    await until(() => pushes.length > n);
    return pushes[n]!;
  };
  return { call, pushed, close: () => socket.destroy() };
}

const PAYOUT_SCRIPTHASH = electrumScripthash(DEVNET_PAYOUT);

describe("devnet produces blocks on command", () => {
  let devnet: Devnet;
  /** The devnet's own regtest chain (each devnet has one, from genesis). */
  let chain: DevnetChain;
  beforeAll(async () => {
    devnet = await startDevnet(["regtest"]);
    chain = devnet.producers.get("regtest")!.chain;
  });
  afterAll(() => devnet.close());
  /** A regtest Core call's result as plain JSON. */
  const core = async (method: string, params: unknown[] = []) =>
    (JSON.parse((await coreCaller(devnet)(method, params, "regtest")).text) as { result: unknown })
      .result;

  it("mine: k blocks on the tip, each announced to Electrum headers subscribers", async () => {
    const sub = await electrumSession(devnet);
    const before = chain.tip.height;
    const change = devnet.producers.get("regtest")!.mine(3);
    expect(change.connected.map((b) => b.height)).toEqual([before + 1, before + 2, before + 3]);
    expect(change.disconnected).toEqual([]);
    expect(change.tip).toEqual(change.connected[2]);
    // One notification per operation (ElectrumX notifies once per batch it indexed): the tip.
    expect((await sub.pushed(0)).height).toBe(before + 3);
    devnet.producers.get("regtest")!.mine(1);
    expect((await sub.pushed(1)).height).toBe(before + 4);
    expect(await core("getblockcount")).toBe(before + 4);
    sub.close();
  });

  it("reorg: the top d blocks give way to d + 1 others, the old branch a valid-fork", async () => {
    const producer = devnet.producers.get("regtest")!;
    producer.mine(2);
    const sub = await electrumSession(devnet);
    const top = chain.tip.height;
    const hashAt = (h: number) => core("getblockhash", [h]);
    const old = [await hashAt(top - 1), await hashAt(top)];
    const change = producer.reorg(2);
    if ("refused" in change) throw new Error(change.refused);
    expect(change.disconnected).toEqual([
      { height: top, hash: old[1] },
      { height: top - 1, hash: old[0] },
    ]);
    expect(change.connected.map((b) => b.height)).toEqual([top - 1, top, top + 1]);
    expect(await hashAt(top - 1)).not.toBe(old[0]);
    expect(await hashAt(top)).not.toBe(old[1]);
    expect(await hashAt(top - 1)).toBe(change.connected[0]!.hash);
    const tips = (await core("getchaintips")) as Record<string, unknown>[];
    expect(tips[0]).toMatchObject({ height: top + 1, status: "active", branchlen: 0 });
    expect(tips).toContainEqual({ height: top, hash: old[1], branchlen: 2, status: "valid-fork" });
    expect(await core("getblockheader", [old[1]])).toMatchObject({ confirmations: -1 });
    // The subscriber hears of the new branch once, at its tip.
    expect((await sub.pushed(0)).height).toBe(top + 1);
    // The script index follows the new branch: one entry per height, the new tip's included. (A
    // replacement coinbase has the old one's txid: same height, payout and fees, as in Core.)
    const history = (await sub.call("blockchain.scripthash.get_history", [PAYOUT_SCRIPTHASH])) as {
      tx_hash: string;
      height: number;
    }[];
    const coinbaseOf = async (hash: unknown) =>
      ((await core("getblock", [hash, 1])) as { tx: string[] }).tx[0];
    for (const b of change.connected) {
      expect(history).toContainEqual({ tx_hash: await coinbaseOf(b.hash), height: b.height });
    }
    const heights = history.map((h) => h.height);
    expect(new Set(heights).size).toBe(heights.length);
    expect(Math.max(...heights)).toBe(top + 1);
    sub.close();
  });

  it("Core's own generatetoaddress and invalidateblock are announced too", async () => {
    const sub = await electrumSession(devnet);
    const before = chain.tip.height;
    await core("generatetoaddress", [2, someAddress("regtest")]);
    expect((await sub.pushed(0)).height).toBe(before + 2);
    await core("invalidateblock", [chain.byHeight.get(before + 1)!.block.hash]);
    expect((await sub.pushed(1)).height).toBe(before);
    await core("reconsiderblock", [chain.byHeight.get(before)!.block.hash]);
    expect((await sub.pushed(2)).height).toBe(before + 2);
    sub.close();
  });

  it("reorg is refused deeper than the chain", () => {
    const producer = devnet.producers.get("regtest")!;
    expect(producer.reorg(chain.tip.height + 1)).toEqual({
      refused: expect.stringMatching(/^cannot take/),
    });
    expect(producer.reorg(0)).toEqual({ refused: expect.stringMatching(/^cannot take/) });
  });
});

describe("devnet's block timer", () => {
  it("produces blocks at the interval on the configured networks (real sockets, real clock)", async () => {
    const devnet = await startDevnet(["regtest"], {
      blockIntervalMs: 20,
      blockNetworks: ["regtest"],
    });
    const chain = devnet.producers.get("regtest")!.chain;
    try {
      const start = chain.tip.height;
      // Two ticks, seen as they happen: each tick announces its tip.
      await new Promise<void>((resolve) => {
        const off = chain.onTip((tip) => {
          if (tip.height >= start + 2) {
            off();
            resolve();
          }
        });
      });
      expect(chain.tip.height).toBeGreaterThanOrEqual(start + 2);
    } finally {
      await devnet.close();
    }
  });

  it("ticks once per interval and never after stop (fake clock)", () => {
    vi.useFakeTimers();
    const errors: string[] = [];
    try {
      const mined: number[] = [];
      const producer = { mine: (n: number) => mined.push(n) } as unknown as BlockProducer;
      const failing = {
        mine: () => {
          throw new Error("no tip");
        },
      } as unknown as BlockProducer;
      const timer = startBlockTimer([failing, producer], 1_000, (e) => errors.push(e.message));
      vi.advanceTimersByTime(3_500);
      expect(mined).toEqual([1, 1, 1]);
      // A failing producer is reported each tick and does not stop the others.
      expect(errors).toEqual(["no tip", "no tip", "no tip"]);
      timer.stop();
      vi.advanceTimersByTime(10_000);
      expect(mined).toEqual([1, 1, 1]);
      expect(vi.getTimerCount()).toBe(0);
      startBlockTimer([producer], 0);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
