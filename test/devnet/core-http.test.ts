import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Devnet, startDevnet } from "../../src/devnet/devnet.ts";
import { HAL_TXID } from "../support/harness.ts";

let devnet: Devnet;
let url: string;
let auth: string;
beforeAll(async () => {
  devnet = await startDevnet(["mainnet"]);
  const core = devnet.cores.get("mainnet")!;
  url = core.url;
  auth = `Basic ${Buffer.from(`${core.user}:${core.password}`).toString("base64")}`;
});
afterAll(() => devnet.close());

async function call(
  body: string,
  headers: Record<string, string> = { authorization: auth },
  method = "POST",
) {
  const res = await fetch(url, { method, headers, ...(method === "POST" ? { body } : {}) });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

describe("devnet's Bitcoin Core speaks Core's HTTP JSON-RPC", () => {
  it("401 with WWW-Authenticate and an empty body without credentials; 250 ms penalty when wrong", async () => {
    const none = await call("{}", {});
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toBe('Basic realm="jsonrpc"');
    expect(none.text).toBe("");
    const started = performance.now();
    const wrong = await call("{}", {
      authorization: `Basic ${Buffer.from("devnet:nope").toString("base64")}`,
    });
    expect(wrong.status).toBe(401);
    expect(performance.now() - started).toBeGreaterThanOrEqual(240);
  });

  it("POST only", async () => {
    const res = await call("", { authorization: auth }, "GET");
    expect(res.status).toBe(405);
  });

  it("2.0: HTTP 200 for errors, one of result/error, compact JSON and a newline", async () => {
    const res = await call(
      `{"jsonrpc":"2.0","id":1,"method":"getrawtransaction","params":["${"00".repeat(32)}"]}`,
    );
    expect(res.status).toBe(200);
    expect(res.text).toBe(
      '{"jsonrpc":"2.0","error":{"code":-5,"message":"No such mempool or blockchain transaction. Use gettransaction for wallet transactions."},"id":1}\n',
    );
  });

  it("1.0: both keys, HTTP 500 on an RPC error, 404 for an unknown method, 400 for a bad request", async () => {
    const ok = await call(`{"id":1,"method":"getrawtransaction","params":["${HAL_TXID}"]}`);
    expect(ok.status).toBe(200);
    expect(ok.text.startsWith('{"result":"0100000001')).toBe(true);
    expect(ok.text.endsWith('"error":null,"id":1}\n')).toBe(true);
    const missing = await call(
      `{"id":1,"method":"getrawtransaction","params":["${"00".repeat(32)}"]}`,
    );
    expect(missing.status).toBe(500);
    expect((await call('{"id":1,"method":"nope"}')).status).toBe(404);
    const bad = await call('{"id":1}');
    expect(bad.status).toBe(400);
    expect(bad.text).toBe(
      '{"result":null,"error":{"code":-32600,"message":"Missing method"},"id":1}\n',
    );
  });

  it("parse errors are legacy 500s with a null id", async () => {
    const res = await call("{nope");
    expect(res.status).toBe(500);
    expect(res.text).toBe(
      '{"result":null,"error":{"code":-32700,"message":"Parse error"},"id":null}\n',
    );
  });

  it("notifications: executed, HTTP 204; a batch skips them; an all-notification batch is 204", async () => {
    const note = `{"jsonrpc":"2.0","method":"getblockcount","params":[]}`;
    expect((await call(note)).status).toBe(204);
    const batch = await call(
      `[${note},{"jsonrpc":"2.0","id":5,"method":"getblockcount","params":[]},7]`,
    );
    expect(batch.status).toBe(200);
    expect(JSON.parse(batch.text)).toEqual([
      { jsonrpc: "2.0", result: 951658, id: 5 },
      { result: null, error: { code: -32600, message: "Invalid Request object" }, id: null },
    ]);
    expect((await call(`[${note},${note}]`)).status).toBe(204);
    expect((await call("[]")).text).toBe("[]\n");
  });
});
