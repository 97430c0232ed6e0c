// Two Electrum servers for one network: one stopped while clients call, then
// restarted. Clients see no error (a request on the stopped server's connections goes to the
// other), each call is charged once, and the restarted server is back in the rotation.
import { once } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDevnetChain } from "../../src/devnet/chain.ts";
import { type Devnet, startDevnet } from "../../src/devnet/devnet.ts";
import type { DevnetElectrumServer } from "../../src/devnet/electrum/server.ts";
import { startDevnetElectrum } from "../../src/devnet/electrum/start.ts";
import { chainPrevouts } from "../../src/devnet/prevouts.ts";
import { auditTotals } from "../support/audit.ts";
import {
  electrumConnected,
  post,
  rpc,
  startTestGateway,
  type TestGateway,
} from "../support/harness.ts";
import { expectLedgerOk } from "../support/ledger.ts";

const chain = loadDevnetChain();
/** Mempool transactions are never cached: every request reaches an Electrum server. */
const MEMPOOL_TXID = [...chain.mempool.keys()][1]!;
const PRICE = 100; // blockchain.transaction.get on mainnet
const WORKERS = 6;
/** Each worker's loop is bounded: a test that cannot finish fails instead of spinning. */
const REQUESTS_PER_WORKER_MAX = 3_000;

let devnet: Devnet;
let second: DevnetElectrumServer;
let t: TestGateway;
beforeAll(async () => {
  devnet = await startDevnet(["mainnet"]);
  second = await startDevnetElectrum(chain, devnet.cores.get("mainnet")!, chainPrevouts(chain));
  const settings = { timeoutMs: 3_000, reconnectMaxMs: 500 };
  t = await startTestGateway(
    "pglite",
    {
      networks: ["mainnet"],
      upstreams: {
        node: { mainnet: ["devnet"] },
        electrum: {
          mainnet: [
            { url: devnet.electrum.get("mainnet")!.url, ...settings },
            { url: second.url, ...settings },
          ],
        },
      },
    },
    undefined,
    { devnet },
  );
  await electrumConnected(t);
});
afterAll(async () => {
  await t?.close();
  await second?.close();
  await devnet?.close();
});

describe("one of two Electrum servers stopped and restarted under load", () => {
  it("no client error; each call charged once; the restarted server serves again", async () => {
    const { id, token } = await t.account("wallet", 10_000_000);
    const url = `${t.url}/electrum/mainnet/${token}`;
    const statuses: number[] = [];
    const waiting: { count: number; resolve: () => void }[] = [];
    let stopped = false;
    const worker = async () => {
      for (let i = 0; i < REQUESTS_PER_WORKER_MAX && !stopped; i++) {
        const res = await post(url, rpc("blockchain.transaction.get", [MEMPOOL_TXID, true], i));
        statuses.push(res.status);
        for (const w of waiting.filter((x) => statuses.length >= x.count)) {
          waiting.splice(waiting.indexOf(w), 1);
          w.resolve();
        }
      }
    };
    const answered = (n: number) =>
      new Promise<void>((resolve) => waiting.push({ count: statuses.length + n, resolve }));
    const workers = Array.from({ length: WORKERS }, worker);

    await answered(30);
    await second.stop();
    await answered(100);
    const upstream = t.gateway.app.electrum.get("mainnet")!.upstreams[1]!;
    const reconnected = once(upstream, "connected");
    const served = () => second.stats.methods["blockchain.transaction.get"] ?? 0;
    const servedBefore = served();
    await second.restart();
    await reconnected;
    // Back in the rotation: it answers some of the next calls itself.
    while (served() === servedBefore) await answered(10);
    stopped = true;
    await Promise.all(workers);

    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expect(await auditTotals(t.gateway.app.db, { accountId: id }, ["charged", "n"])).toEqual({
      charged: statuses.length * PRICE,
      n: statuses.length,
    });
    await expectLedgerOk(t.gateway.app.db, id, { held: 0 });
  });
});
