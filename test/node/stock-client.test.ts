import Client from "bitcoin-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BLOCK_170, HAL_TXID, startTestGateway, type TestGateway } from "../support/harness.ts";

interface StockClient {
  command(...args: unknown[]): Promise<unknown>;
}
type ClientCtor = new (opts: Record<string, unknown>) => StockClient;

let t: TestGateway;
let viaGateway: StockClient;
let direct: StockClient;
beforeAll(async () => {
  t = await startTestGateway();
  const { token } = await t.account("stock", 100_000);
  const core = t.devnet.cores.get("mainnet")!;
  const Ctor = Client as unknown as ClientCtor;
  // The npm `bitcoin-core` client speaks legacy JSON-RPC 1.0 and posts to `<host>/`.
  viaGateway = new Ctor({ host: `${t.url}/node/mainnet/${token}`, logger: quiet() });
  direct = new Ctor({
    host: core.url.replace(/\/$/, ""),
    username: core.user,
    password: core.password,
    logger: quiet(),
  });
});
afterAll(() => t.close());

function quiet() {
  const noop = () => {};
  const logger = {
    info: noop,
    debug: noop,
    error: noop,
    warn: noop,
    trace: noop,
    fatal: noop,
    child: () => logger,
  };
  return logger;
}

async function both(...args: unknown[]) {
  const settle = (p: Promise<unknown>) =>
    p.then(
      (value) => ({ value }),
      (err: { code?: number; message?: string }) => ({
        error: { code: err.code, message: err.message },
      }),
    );
  return Promise.all([settle(viaGateway.command(...args)), settle(direct.command(...args))]);
}

describe("a stock Bitcoin Core client from npm gets through the gateway what it gets from devnet", () => {
  it.each([
    ["hex", [HAL_TXID], "value"],
    ["verbose", [HAL_TXID, true], "value"],
    ["verbosity 2 in a block", [HAL_TXID, 2, BLOCK_170], "value"],
    ["unknown txid (-5)", ["11".repeat(32)], "error"],
    ["bad txid (-8)", ["xyz"], "error"],
  ])("getrawtransaction %s", async (_name, params, kind) => {
    const [gateway, node] = await both("getrawtransaction", ...params);
    expect(Object.keys(gateway)).toEqual([kind]);
    expect(gateway).toEqual(node);
  });

  it("batches", async () => {
    const batch = [
      { method: "getrawtransaction", parameters: [HAL_TXID] },
      { method: "getrawtransaction", parameters: ["22".repeat(32)] },
    ];
    const [gateway, node] = await both(batch);
    expect(JSON.stringify(gateway)).toEqual(JSON.stringify(node));
  });
});
