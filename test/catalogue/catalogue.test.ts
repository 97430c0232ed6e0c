import { readFileSync } from "node:fs";
import { request } from "node:http";
import Client from "bitcoin-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tokenHint } from "../../src/access/tokens.ts";
import { DEFAULT_PRICES } from "../../src/billing/pricing/price-list.ts";
import { priceOf } from "../../src/billing/pricing/prices.ts";
import { parseConfig } from "../../src/config/load.ts";
import { CATALOGUE } from "../../src/routes/catalogue/methods.ts";
import { withCatalogueTable } from "../../src/routes/catalogue/render.ts";
import { signIn } from "../dashboard/support.ts";
import { post, rpc, startTestGateway, type TestGateway } from "../support/harness.ts";

interface StockClient {
  command(...args: unknown[]): Promise<unknown>;
}
type ClientCtor = new (opts: Record<string, unknown>) => StockClient;

let t: TestGateway;
let token: string;
let viaGateway: StockClient;
let direct: StockClient;
beforeAll(async () => {
  t = await startTestGateway("pglite", {
    pricing: { "blockchain.relayfee": { default: 3, regtest: 1 }, "getblock/2": { default: 333 } },
  });
  ({ token } = await t.account("catalogue-reader", 1_000_000));
  const core = t.devnet.cores.get("mainnet")!;
  const Ctor = Client as unknown as ClientCtor;
  const logger = quiet();
  viaGateway = new Ctor({ host: `${t.url}/node/mainnet/${token}`, logger });
  direct = new Ctor({
    host: core.url.replace(/\/$/, ""),
    username: core.user,
    password: core.password,
    logger,
  });
});
afterAll(() => t.close());

describe("the method catalogue", () => {
  it("docs/users/methods.md's table is the catalogue at the default prices (run `npx tsx scripts/method-catalogue.ts`)", () => {
    const page = readFileSync("docs/users/methods.md", "utf8");
    expect(withCatalogueTable(page, parseConfig({}))).toBe(page);
  });

  it("prices every method it lists, and lists every method priced", () => {
    const listed = CATALOGUE.flatMap((m) => [
      m.method,
      ...(m.variants ?? []).map((v) => `${m.method}/${v.variant}`),
    ]);
    expect(new Set(listed)).toEqual(new Set(Object.keys(DEFAULT_PRICES)));
  });

  it("GET /methods.json gives each method's parameters, example and the running config's prices", async () => {
    const res = await fetch(`${t.url}/methods.json`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      networks: string[];
      methods: {
        method: string;
        backend: string;
        prices: Record<string, Record<string, number>>;
      }[];
    };
    expect(body.networks).toEqual(t.gateway.app.config.networks);
    const relay = body.methods.find((m) => m.method === "blockchain.relayfee")!;
    expect(relay.backend).toBe("electrum");
    expect(relay.prices["blockchain.relayfee"]).toMatchObject({ mainnet: 3, regtest: 1 });
    const getblock = body.methods.find((m) => m.method === "getblock")!;
    expect(getblock.prices).toMatchObject({
      getblock: { mainnet: 200, regtest: 100 },
      "getblock/2": { mainnet: 333, regtest: 333 },
      "getblock/3": { mainnet: 1000, regtest: 500 },
    });
    expect(body.methods.map((m) => m.method)).toEqual(CATALOGUE.map((m) => m.method));
  });

  it("GET /methods is a page naming every method with a call to copy, public and uncharged", async () => {
    const res = await fetch(`${t.url}/methods`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(res.headers.get("x-credits-charged")).toBeNull();
    const html = await res.text();
    for (const m of CATALOGUE) expect(html).toContain(`id="${m.method}"`);
    expect(html).toContain("curl -s -X POST");
    // Examples name the address the page was read at, so they can be pasted as they are.
    expect(html).toContain(`${t.url}/node/mainnet/$TOKEN`);
    expect(html).not.toContain("http://HOST/");
    // Contents: each method linked to its section.
    for (const m of CATALOGUE) expect(html).toContain(`href="#${m.method}"`);
    // A Host header that is no host is not echoed into the page.
    const odd = await new Promise<string>((resolve, reject) => {
      const req = request(`${t.url}/methods`, { headers: { host: "<script>" } }, (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (d: string) => {
          text += d;
        });
        res.on("end", () => resolve(text));
      });
      req.on("error", reject).end();
    });
    expect(odd).toContain("http://HOST/node/mainnet/$TOKEN");
    expect(odd).not.toContain("<script>");
  });
});

describe("every example call in the catalogue is answered through the gateway on devnet", () => {
  it.each(
    CATALOGUE.filter((m) => m.rest).map((m) => [m.method, m.rest!] as const),
  )("esplora %s", async (method, rest) => {
    const res = await fetch(`${t.url}/esplora/mainnet/${token}/api${rest.example}`, {
      method: rest.verb,
      ...(rest.verb === "POST" ? { body: HAL_TX_HEX } : {}),
    });
    // A broadcast of a transaction long mined is refused by the node: still Esplora's answer.
    expect(res.status, await res.text()).toBe(rest.verb === "POST" ? 400 : 200);
    const price = priceOf(t.gateway.app.config, method, "mainnet");
    expect(Number(res.headers.get("x-credits-charged"))).toBe(price);
  });

  it.each(
    CATALOGUE.filter((m) => !m.rest).map((m) => [m.backend, m.method, m] as const),
  )("%s %s", async (backend, method, m) => {
    const res = await post(`${t.url}/${backend}/mainnet/${token}`, rpc(method, m.example));
    expect(res.status).toBe(200);
    const body = res.json as { result?: unknown; error?: { code: number; message: string } };
    // An upstream's refusal of the example (a spent output, a transaction already mined) is
    // still an answer; what must not happen is an unknown method or refused arguments.
    if (body.error) {
      expect(body.error.code, body.error.message).not.toBe(-32601);
      expect([-1, -3, -8, -32602], body.error.message).not.toContain(body.error.code);
    }
    // Each at its configured price (keep-alives are free).
    const price = priceOf(t.gateway.app.config, method, "mainnet");
    expect(Number(res.headers.get("x-credits-charged"))).toBe(price);
  });
});

const HAL_TX_HEX =
  "0100000001c997a5e56e104102fa209c6a852dd90660a20b2d9c352423edce25857fcd3704000000004847304402204e45e16932b8af514961a1d3a1a25fdf3f4f7732e9d624c6c61548ab5fb8cd410220181522ec8eca07de4860a4acdd12909d831cc56cbbac4622082221a8768d1d0901ffffffff0200ca9a3b00000000434104ae1a62fe09c5f51b13905f07f06b99a2f7159b2225f374cd378d71302fa28414e7aab37397f554a7df5f142c21c1b7303b8a0626f1baded5c72a704f7e6cd84cac00286bee0000000043410411db93e1dcdb8a016b49840f8c53bc1eb68a382e97b1482ecad7b148a6909a5cb2e0eaddfb84ccf9744464f82e160bfa9b8b64f9d4c03f999b8643f656b412a3ac00000000";

function quiet() {
  const noop = () => {};
  const logger = { info: noop, debug: noop, error: noop, warn: noop, trace: noop, fatal: noop };
  return { ...logger, child: () => logger };
}

const settle = (p: Promise<unknown>) =>
  p.then(
    (value) => ({ value }),
    (err: { code?: number; message?: string }) => ({
      error: { code: err.code, message: err.message },
    }),
  );

/** Answers that move between two calls a moment apart (seconds since start). */
const MOVING = new Set(["uptime"]);

describe("the npm bitcoin-core client calls every Core method of the catalogue through the gateway unchanged", () => {
  it.each(
    CATALOGUE.filter((m) => m.backend === "node").map((m) => [m.method, m.example] as const),
  )("%s", async (method, example) => {
    const gateway = await settle(viaGateway.command(method, ...example));
    const node = await settle(direct.command(method, ...example));
    if (MOVING.has(method)) {
      expect(typeof (gateway as { value: unknown }).value).toBe("number");
      return;
    }
    expect(gateway).toEqual(node);
    // The catalogue's examples are answered; broadcasting a mined transaction is refused (-27).
    if (method === "sendrawtransaction") expect(gateway).toMatchObject({ error: { code: -27 } });
    else expect(Object.keys(gateway)).toEqual(["value"]);
  });

  it("GET /dashboard/methods names the signed-in account and its key's hint; without a session it sends to /methods", async () => {
    const anonymous = await fetch(`${t.url}/dashboard/methods`, { redirect: "manual" });
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.get("location")).toBe("/methods");
    const cookie = (await signIn(t, token))!;
    const res = await fetch(`${t.url}/dashboard/methods`, { headers: { cookie } });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const html = await res.text();
    expect(html).toContain(
      `Signed in as <b>catalogue-reader</b> with the key <code>${tokenHint(token)}</code>.`,
    );
    expect(html).toContain(`${t.url}/node/mainnet/$TOKEN`);
    // The hint, never the key.
    expect(html).not.toContain(token.slice(4));
  });

  it("a wallet call and stop are refused by the gateway as Core refuses an unknown method", async () => {
    for (const method of ["getbalance", "stop", "generatetoaddress"]) {
      expect(await settle(viaGateway.command(method))).toEqual({
        error: { code: -32601, message: "Method not found" },
      });
    }
  });
});
