import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { auditGrouped } from "../support/audit.ts";
import { mineBlock } from "../support/devnet-core.ts";
import { startTestGateway, type TestGateway } from "../support/harness.ts";
import { expectWholeLedgerOk } from "../support/ledger.ts";

/**
 * A planned query arriving just after an identical indexer trip ended takes that trip's answer
 * (decision 0058): the bytes a trip of its own would give, charged and audited as one. Never once
 * a new tip was heard. The trips here are held at devnet's indexer for HELD_MS, so that the next
 * request, sent as soon as the first is answered, comes within the trip's own duration after its
 * end (the bound), however loaded the machine.
 */
const HELD_MS = 1_000;
let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway("pglite", {
    networks: ["mainnet"],
    // Never final: the cache of whole answers would not keep these; off so none is answered by it.
    cache: { gatewayBytesMax: 0 },
    graphql: { sharedAfterTripMs: HELD_MS },
    // A chain follower whose only looks are the test's own (pollNow).
    events: { pollMs: 60_000 },
  });
  expect(await t.gateway.app.events.leading()).toBe(true);
  await t.gateway.app.events.pollNow(); // the first look: the tip known, nothing announced
});
afterAll(() => t.close());

const LATEST = { query: "{ block(limit: 3, order_by: {height: desc}) { hash height timestamp } }" };
const indexer = () => t.devnet.indexers.get("mainnet")!;
const finished = () => t.gateway.app.indexers.get("mainnet")!.finished.stats;

async function post(url: string, body: Record<string, unknown>) {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return {
    status: res.status,
    text: await res.text(),
    charged: res.headers.get("x-credits-charged"),
  };
}

const withoutBalance = (text: string) => text.replace(/"balance":\d+/g, '"balance":0');

/** A request whose indexer trip is held HELD_MS at the indexer, then let go. */
async function heldTrip(url: string) {
  // The requests just before ended trips of this very query, which this one could take: it must
  // make its own, so none is kept for it (as a new tip would do).
  t.gateway.app.indexers.get("mainnet")!.finished.newTip();
  const before = indexer().stats.httpRequests;
  const release = indexer().hold();
  const sent = post(url, LATEST);
  const at = performance.now();
  try {
    await vi.waitFor(
      () => {
        expect(indexer().stats.httpRequests).toBe(before + 1);
        expect(performance.now() - at).toBeGreaterThanOrEqual(HELD_MS);
      },
      { timeout: 20_000, interval: 50 },
    );
  } finally {
    release();
  }
  return sent;
}

describe("an identical planned query just after a trip ended", () => {
  it("takes its answer: the same bytes as Yoga's, charged and audited as its own trip", async () => {
    const { token, id } = await t.account("after-trip", 1_000_000);
    const url = `${t.url}/gateway/mainnet/${token}`;
    // Learnt from its second execution; planned from then on.
    for (let i = 0; i < 2; i++) expect((await post(url, LATEST)).status).toBe(200);
    const first = await heldTrip(url);
    const requests = indexer().stats.httpRequests;
    const taken = finished().taken;
    const next = await post(url, LATEST);
    expect(indexer().stats.httpRequests).toBe(requests);
    expect(finished().taken).toBe(taken + 1);
    expect(next.status).toBe(200);
    expect(withoutBalance(next.text)).toBe(withoutBalance(first.text));
    expect(next.charged).toBe(first.charged);
    // Yoga's answer (a body with `extensions` is never planned): its own trip, the same bytes.
    const yoga = await post(url, { ...LATEST, extensions: {} });
    expect(withoutBalance(yoga.text)).toBe(withoutBalance(next.text));
    const price = Number(first.charged);
    expect(price).toBeGreaterThan(0);
    expect(
      await auditGrouped(t.gateway.app.db, { accountId: id }, "outcome", ["n", "charged"]),
    ).toEqual([{ outcome: "ok", n: 5, charged: 5 * price }]);
    await expectWholeLedgerOk(t.gateway.app.db);
  });

  it("never across a new tip: the block mined is in the next answer, from a trip of its own", async () => {
    const { token } = await t.account("new-tip", 1_000_000);
    const url = `${t.url}/gateway/mainnet/${token}`;
    for (let i = 0; i < 2; i++) expect((await post(url, LATEST)).status).toBe(200);
    const first = await heldTrip(url);
    const hash = await mineBlock(t.devnet, "mainnet");
    await t.gateway.app.events.pollNow();
    const requests = indexer().stats.httpRequests;
    const taken = finished().taken;
    const next = await post(url, LATEST);
    expect(indexer().stats.httpRequests).toBe(requests + 1);
    expect(finished().taken).toBe(taken);
    expect(first.text).not.toContain(hash);
    expect(next.text).toContain(hash);
  });
});
