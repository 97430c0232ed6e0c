import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Devnet, startDevnet } from "../../src/devnet/devnet.ts";
import { IndexerPool } from "../../src/upstreams/indexer/pool.ts";

/** The gateway's indexer client and pool against devnet's indexer on real sockets. */
let devnet: Devnet;
let deadUrl: string;
beforeAll(async () => {
  devnet = await startDevnet(["mainnet"]);
  // A port that was just ours and is closed now: connections to it are refused.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  deadUrl = `http://127.0.0.1:${port}/v1/graphql`;
});
afterAll(() => devnet.close());

const indexer = () => devnet.indexers.get("mainnet")!;
const upstream = (secret = indexer().secret, url = indexer().url) => ({
  url,
  adminSecret: secret,
  timeoutMs: 5_000,
  connections: 2,
});
const QUERY = { query: "{ block(limit: 1) { height } }", variables: {}, operationName: undefined };

async function withPool<T>(
  configs: ReturnType<typeof upstream>[],
  run: (p: IndexerPool) => Promise<T>,
) {
  const pool = new IndexerPool(configs);
  try {
    return await run(pool);
  } finally {
    await pool.close();
  }
}

describe("indexer pool", () => {
  it("answers with the indexer's data and names the upstream", async () => {
    const out = await withPool([upstream()], (p) => p.query(QUERY));
    expect(out).toEqual({
      ok: true,
      data: { block: [{ height: expect.anything() }] },
      upstream: new URL(indexer().url).host,
    });
  });

  it("fails over from an unreachable indexer to the next", async () => {
    const out = await withPool([upstream(indexer().secret, deadUrl), upstream()], (p) =>
      p.query(QUERY),
    );
    expect(out.ok).toBe(true);
  });

  it("fails over from an indexer that refuses the admin secret, and reports it when all do", async () => {
    expect((await withPool([upstream("wrong"), upstream()], (p) => p.query(QUERY))).ok).toBe(true);
    const out = await withPool([upstream("wrong")], (p) => p.query(QUERY));
    expect(out).toMatchObject({ ok: false, error: { code: "UPSTREAM_UNAVAILABLE" } });
    if (!out.ok) expect(out.error.detail).toContain("refused the admin secret");
  });

  it("maps a Hasura error answer to UPSTREAM_BAD_RESPONSE, keeping its code for the client", async () => {
    const out = await withPool([upstream()], (p) =>
      p.query({ query: "{ block { nope } }", variables: {}, operationName: undefined }),
    );
    expect(out).toMatchObject({
      ok: false,
      error: { code: "UPSTREAM_BAD_RESPONSE", data: { upstreamCode: "validation-failed" } },
    });
  });

  it("gives up at the caller's deadline with UPSTREAM_TIMEOUT, without trying the next", async () => {
    const release = indexer().hold();
    try {
      const out = await withPool([upstream(), upstream()], (p) =>
        p.query(QUERY, AbortSignal.timeout(200)),
      );
      expect(out).toMatchObject({ ok: false, error: { code: "UPSTREAM_TIMEOUT" } });
    } finally {
      release();
    }
  });
});
