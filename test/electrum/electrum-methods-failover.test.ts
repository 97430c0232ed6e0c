import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { priceOf } from "../../src/billing/pricing/prices.ts";
import { type Devnet, startDevnet } from "../../src/devnet/devnet.ts";
import { type ScriptedPeer, startScriptedElectrum } from "../support/electrum-peer.ts";
import {
  electrumConnected,
  post,
  rpc,
  startTestGateway,
  type TestGateway,
} from "../support/harness.ts";
import { expectLedgerOk } from "../support/ledger.ts";
import { electrumCall } from "../support/net.ts";

/**
 * The forwarded methods ride the pool's failover: with a silent server beside devnet's, a look-up
 * is always answered (a retry or a hedge reaches devnet) and charged once; a broadcast is sent to
 * one server only, never retried: answered and charged, or 504 and free.
 */

const SATOSHI = "8131e31b9b2da6ddb7cca24c537869c94320f19e80fc2ee72c9558e5a9296978";
const GET_BALANCE = "blockchain.scripthash.get_balance";

let devnet: Devnet;
let silent: ScriptedPeer;
let t: TestGateway;
let token: string;
let accountId: number;
beforeAll(async () => {
  devnet = await startDevnet(["mainnet"]);
  silent = await startScriptedElectrum(() => null);
  // A budget that a loaded machine (the suite runs files two at a time) still leaves room in for the
  // hedge, sent after up to 500 ms, to reach devnet and come back.
  const settings = { timeoutMs: 3_000, reconnectMaxMs: 500 };
  t = await startTestGateway(
    "pglite",
    {
      networks: ["mainnet"],
      upstreams: {
        node: { mainnet: ["devnet"] },
        electrum: {
          mainnet: [
            { url: silent.url, ...settings },
            { url: devnet.electrum.get("mainnet")!.url, ...settings },
          ],
        },
      },
    },
    undefined,
    { devnet },
  );
  ({ token, id: accountId } = await t.account("failover", 1_000_000));
  await electrumConnected(t, "mainnet", [1]);
  // devnet builds its script-hash index at the first look-up, which on a loaded machine takes
  // longer than the budget: built now, asked of devnet itself with no deadline (through the
  // gateway's client, the build outlasted its timeout), the calls below time the gateway's
  // failover, not devnet's first build.
  const direct = await electrumCall(devnet.electrum.get("mainnet")!.url, GET_BALANCE, [SATOSHI]);
  expect(direct).toMatchObject({ result: { confirmed: 1_800_000_000 } });
});
afterAll(async () => {
  await t?.close();
  await silent?.close();
  await devnet?.close();
});

const url = () => `${t.url}/electrum/mainnet/${token}`;
const price = (method: string) => priceOf(t.gateway.app.config, method, "mainnet")!;

describe("forwarded methods and a silent server", () => {
  it("look-ups are answered from the server that answers, each charged once", async () => {
    for (let i = 0; i < 4; i++) {
      const res = await post(url(), rpc("blockchain.scripthash.get_balance", [SATOSHI]));
      expect(res.status).toBe(200);
      expect((res.json as { result: unknown }).result).toEqual({
        confirmed: 1_800_000_000,
        unconfirmed: 0,
      });
      expect(res.headers.get("x-credits-charged")).toBe(
        String(price("blockchain.scripthash.get_balance")),
      );
    }
  });

  it("a broadcast goes to one server only: answered and charged, or 504 and free", async () => {
    const count = () =>
      silent.methods.filter((m) => m === "blockchain.transaction.broadcast").length +
      (devnet.electrum.get("mainnet")!.stats.methods["blockchain.transaction.broadcast"] ?? 0);
    for (let i = 0; i < 4; i++) {
      const before = count();
      const res = await post(url(), rpc("blockchain.transaction.broadcast", ["00"]));
      expect(count()).toBe(before + 1);
      if (res.status === 200) {
        expect((res.json as { error: { code: number } }).error.code).toBe(1);
        expect(res.headers.get("x-credits-charged")).toBe(
          String(price("blockchain.transaction.broadcast")),
        );
      } else {
        expect(res.status).toBe(504);
        expect(res.headers.get("x-credits-charged")).toBe("0");
      }
    }
  });

  it("the ledger balances", async () => {
    await expectLedgerOk(t.gateway.app.db, accountId);
  });
});
