import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { encodeSegwitAddress } from "../../src/bitcoin/address.ts";
import type { NetworkName } from "../../src/config/schema.ts";
import { electrumHeaders } from "../../src/events/headers-source.ts";
import { TipFollower } from "../../src/events/tip-follower.ts";
import type { ChainEvent } from "../../src/events/types.ts";
import { auditRecords } from "../support/audit.ts";
import { someAddress } from "../support/devnet-core.ts";
import {
  askDevnetCore,
  post,
  rpc,
  startTestGateway,
  type TestGateway,
} from "../support/harness.ts";
import { REDIS_URL } from "../support/redis-pair.ts";
import { firstOverSocket } from "../support/subscribers.ts";

/** devnet's Core on `network`, asked directly (the gateway refuses mining methods). */
async function core(t: TestGateway, method: string, params: unknown[], network: NetworkName) {
  const answer = JSON.parse(await askDevnetCore(t.devnet, method, params, network)) as {
    result: unknown;
    error: unknown;
  };
  if (answer.error) throw new Error(JSON.stringify(answer.error));
  return answer.result;
}

/** Collects `network`'s events until `n` have come. */
function collect(t: TestGateway, network: NetworkName, n: number): Promise<ChainEvent[]> {
  const got: ChainEvent[] = [];
  return new Promise((resolve) => {
    const stop = t.gateway.app.events.subscribe(network, (e) => {
      got.push(e);
      if (got.length === n) {
        stop();
        resolve(got);
      }
    });
  });
}

const brief = (e: ChainEvent) => [e.kind, e.height, e.hash];

/** One block mined on regtest (devnet's Core, asked directly); its hash. */
async function mineOne(t: TestGateway): Promise<string> {
  const [hash] = (await core(t, "generatetoaddress", [1, someAddress("regtest")], "regtest")) as [
    string,
  ];
  return hash;
}

const PAIR_CONFIG = {
  networks: ["regtest" as const],
  events: { pollMs: 60_000, leaderRetryMs: 50 },
};

/** Two gateways on one PostgreSQL schema and one devnet (and one Redis, given its URL). */
async function startPair(redisUrl?: string): Promise<[TestGateway, TestGateway]> {
  const redis = redisUrl ? { redisUrl } : {};
  const a = await startTestGateway("postgres", PAIR_CONFIG, undefined, redis);
  const b = await startTestGateway("postgres", PAIR_CONFIG, a.schema!, {
    ...redis,
    devnet: a.devnet,
  });
  return [a, b];
}

/** The pair as leader and other (exactly one leads), the leader's first look done. */
async function roles(a: TestGateway, b: TestGateway): Promise<[TestGateway, TestGateway]> {
  const leaders = [await a.gateway.app.events.leading(), await b.gateway.app.events.leading()];
  expect(leaders.filter(Boolean)).toHaveLength(1);
  const [leader, other] = leaders[0] ? [a, b] : [b, a];
  await leader.gateway.app.events.pollNow();
  return [leader, other];
}

describe("chain events on one process (PGlite): the leader follows each chain", () => {
  let t: TestGateway;
  /** The same chain followed through devnet's Electrum server alone (a network with no node). */
  let viaElectrum: TipFollower;
  beforeAll(async () => {
    // A poll interval long enough that only the test's own looks (pollNow) find anything.
    t = await startTestGateway("pglite", {
      networks: ["mainnet", "regtest", "signet"],
      events: { pollMs: 60_000 },
      // signet has Electrum servers and no full node: its chain is followed through Electrum.
      upstreams: { node: { mainnet: ["devnet"], regtest: ["devnet"] } },
    });
    expect(await t.gateway.app.events.leading()).toBe(true);
    await t.gateway.app.events.pollNow(); // the first look: tips known, nothing announced
    const pool = t.gateway.app.electrum.get("regtest")!;
    viaElectrum = new TipFollower("regtest", electrumHeaders(pool), 100);
    await vi.waitFor(() => expect(pool.tip()).not.toBeNull());
    expect(await viaElectrum.poll()).toEqual([]);
  });
  afterAll(() => t.close());

  /** The Electrum follower's look once the server's headers subscription reports `height`. */
  async function electrumLook(height: number): Promise<ChainEvent[]> {
    const pool = t.gateway.app.electrum.get("regtest")!;
    await vi.waitFor(() => expect(pool.tip()?.height).toBe(height));
    return viaElectrum.poll();
  }

  it("announces a block at once when the Electrum server tells of it, not at the next poll", async () => {
    // No pollNow: the poll interval is a minute; the server's header notification starts a look.
    const events = collect(t, "regtest", 1);
    const hash = await mineOne(t);
    expect((await events).map((e) => e.hash)).toEqual([hash]);
    expect((await electrumLook((await events)[0]!.height)).map(brief)).toEqual(
      (await events).map(brief),
    );
  });

  it("a network with Electrum servers and no node: configured, followed through Electrum, its node route unavailable and free", async () => {
    expect(t.gateway.app.nodes.has("signet")).toBe(false);
    const events = collect(t, "signet", 1);
    const [hash] = (await core(t, "generatetoaddress", [1, someAddress("signet")], "signet")) as [
      string,
    ];
    expect((await events).map((e) => [e.kind, e.hash])).toEqual([["connected", hash]]);
    const { token, id } = await t.account("signet-no-node", 1_000);
    const res = await post(`${t.url}/node/signet/${token}`, rpc("getblockcount", []));
    expect((res.json as { error: { message: string } }).error.message).toMatch(
      /no .*node|unavailable/i,
    );
    expect(res.headers.get("x-credits-charged")).toBe("0");
    const rows = await auditRecords(t.gateway.app.db, { accountId: id }, ["charged_cc"]);
    expect(rows.map((r) => Number(r.charged_cc))).toEqual([0]);
  });

  it("announces each block produced, lowest first, as the node has it", async () => {
    const events = collect(t, "regtest", 2);
    const hashes = (await core(
      t,
      "generatetoaddress",
      [2, someAddress("regtest")],
      "regtest",
    )) as string[];
    await t.gateway.app.events.pollNow();
    const got = await events;
    const height = Number(await core(t, "getblockcount", [], "regtest"));
    expect(got.map(brief)).toEqual([
      ["connected", height - 1, hashes[0]],
      ["connected", height, hashes[1]],
    ]);
    expect(got[1]!.previousHash).toBe(hashes[0]);
    expect((await electrumLook(height)).map(brief)).toEqual(got.map(brief));
  });

  it("a reorganisation: the replaced blocks disconnected from the old tip down, then the new branch", async () => {
    const tipBefore = (await core(t, "getbestblockhash", [], "regtest")) as string;
    const heightBefore = Number(await core(t, "getblockcount", [], "regtest"));
    const below = (await core(t, "getblockhash", [heightBefore - 1], "regtest")) as string;
    const events = collect(t, "regtest", 5);
    // Core's own way to stage it: the top two blocks leave the best chain, three replace them,
    // paying another address (the same template in the same second would be the same blocks).
    await core(t, "invalidateblock", [below], "regtest");
    const other = encodeSegwitAddress("bcrt", 0, new Uint8Array(20).fill(9));
    const fresh = (await core(t, "generatetoaddress", [3, other], "regtest")) as string[];
    await t.gateway.app.events.pollNow();
    expect((await events).map(brief)).toEqual([
      ["disconnected", heightBefore, tipBefore],
      ["disconnected", heightBefore - 1, below],
      ["connected", heightBefore - 1, fresh[0]],
      ["connected", heightBefore, fresh[1]],
      ["connected", heightBefore + 1, fresh[2]],
    ]);
    // Through Electrum alone (headers by height), the same change.
    expect((await electrumLook(heightBefore + 1)).map(brief)).toEqual((await events).map(brief));
  });

  it("counts what it heard in blockgate_chain_events_total", async () => {
    const metric = await t.gateway.app.metrics.chainEvents.get();
    const connected = metric.values.find(
      (v) => v.labels.network === "regtest" && v.labels.kind === "connected",
    );
    expect(connected?.value).toBeGreaterThanOrEqual(5);
  });
});

describe("chain events across processes (PostgreSQL): one leader, heard by all", () => {
  let a: TestGateway;
  let b: TestGateway;
  beforeAll(async () => {
    // REDIS_URL names a Redis that is down (nothing listens on port 1): every event goes through
    // NOTIFY, the fallback, as it does with no REDIS_URL at all.
    [a, b] = await startPair("redis://127.0.0.1:1");
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it("exactly one process leads; a block only its follower could see reaches the other's subscribers, GraphQL's too", async () => {
    const [leader, other] = await roles(a, b);
    const heard = collect(other, "regtest", 1);
    // A graphql-ws client on the process that does not lead.
    const { token } = await other.account("ws-on-the-other", 1_000);
    const socket = await firstOverSocket<{ newBlock: { hash: string } }>(
      { url: other.url, events: other.gateway.app.events },
      token,
      "subscription { newBlock { hash } }",
    );
    const hash = await mineOne(a);
    // The other process follows nothing: its look does nothing; the leader's announces.
    await other.gateway.app.events.pollNow();
    await leader.gateway.app.events.pollNow();
    expect((await heard).map((e) => [e.kind, e.hash])).toEqual([["connected", hash]]);
    expect((await socket.first)?.newBlock.hash).toBe(hash);
    await socket.dispose();
  });

  it("when the leader goes, the other takes the lead over and announces from there", async () => {
    const leaderIsA = await a.gateway.app.events.leading();
    const [leader, other] = leaderIsA ? [a, b] : [b, a];
    const takenOver = other.gateway.app.events.untilLeading();
    await leader.gateway.app.events.close(); // its session ends: the advisory lock is free
    await takenOver;
    await other.gateway.app.events.pollNow(); // its first look
    const heard = collect(other, "regtest", 1);
    const hash = await mineOne(a);
    await other.gateway.app.events.pollNow();
    expect((await heard).map((e) => e.hash)).toEqual([hash]);
  });
});

describe("chain events across processes through Redis (REDIS_URL; the lead stays on PostgreSQL)", () => {
  let a: TestGateway;
  let b: TestGateway;
  let spy: Redis;
  beforeAll(async () => {
    [a, b] = await startPair(REDIS_URL);
    // Connected before it subscribes: ioredis' ready check must not meet a subscribed connection.
    spy = new Redis(REDIS_URL, { lazyConnect: true });
    await spy.connect();
    // Both on Redis (subscribed, and able to publish) before the test: until then NOTIFY would
    // carry the block, and the channel would not see it.
    for (const g of [a, b]) await g.gateway.app.events.hearing(30_000);
  });
  afterAll(async () => {
    spy?.disconnect();
    await b?.close();
    await a?.close();
  });

  it("a block only the leader saw reaches the other's subscribers over the deployment's Redis channel", async () => {
    const [leader, other] = await roles(a, b);
    // The channel is the deployment's: its prefix, then the database and schema.
    const channel = `blockgate:chain_event:${a.gateway.app.db.namespace}`;
    expect(a.gateway.app.db.namespace).toMatch(new RegExp(`\\.${a.schema}$`));
    const onRedis = new Promise<ChainEvent>((resolve) => {
      spy.on("message", (_channel: string, payload: string) => resolve(JSON.parse(payload)));
    });
    await spy.subscribe(channel);
    const heard = collect(other, "regtest", 1);
    const hash = await mineOne(a);
    await leader.gateway.app.events.pollNow();
    const [event] = await heard;
    expect([event!.kind, event!.hash]).toEqual(["connected", hash]);
    expect((await onRedis).id).toBe(event!.id);
  });
});
