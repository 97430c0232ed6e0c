import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditRecords } from "../support/audit.ts";
import {
  GENESIS_COINBASE,
  HAL_TXID,
  post,
  rpc,
  startTestGateway,
  type TestGateway,
} from "../support/harness.ts";
import { balanceOf } from "../support/ledger.ts";

let t: TestGateway;
let token: string;
beforeAll(async () => {
  t = await startTestGateway("pglite", {
    server: { port: 0, bodyBytesMax: 4096, batchItemsMax: 5 },
    graphql: { listItemsMax: 3 },
  });
  ({ token } = await t.account("bob", 100_000));
});
afterAll(() => t.close());

const url = () => `${t.url}/node/mainnet/${token}`;
const charged = async (fn: () => Promise<unknown>) => {
  const before = await available();
  await fn();
  return before - (await available());
};

async function available(): Promise<number> {
  return (await balanceOf(t.gateway.app.db, "bob")).available;
}

async function errorOf(params: unknown[] | Record<string, unknown>) {
  const res = await post(url(), rpc("getrawtransaction", params));
  expect(res.status).toBe(200);
  return (res.json as { error: { code: number; message: string } }).error;
}

describe("parameters are checked as Bitcoin Core checks them, before forwarding, free of charge", () => {
  it("txid of the wrong length or not hex: -8", async () => {
    expect(await errorOf(["abc"])).toEqual({
      code: -8,
      message: "parameter 1 must be of length 64 (not 3, for 'abc')",
    });
    const zz = "zz".repeat(32);
    expect(await errorOf([zz])).toEqual({
      code: -8,
      message: `parameter 1 must be hexadecimal string (not '${zz}')`,
    });
    expect(await charged(() => errorOf(["abc"]))).toBe(0);
  });

  it("blockhash checked the same way as parameter 3", async () => {
    expect(await errorOf([HAL_TXID, false, "12"])).toEqual({
      code: -8,
      message: "parameter 3 must be of length 64 (not 2, for '12')",
    });
  });

  it("wrong JSON types: -3 with Core's Wrong type passed layout", async () => {
    expect(await errorOf([42])).toEqual({
      code: -3,
      message:
        'Wrong type passed:\n{\n    "Position 1 (txid)": "JSON value of type number is not of expected type string"\n}',
    });
    expect(await errorOf([HAL_TXID, "1"])).toEqual({
      code: -3,
      message: "JSON value of type string is not of expected type number",
    });
    expect(await errorOf([HAL_TXID, 1.5])).toEqual({
      code: -1,
      message: "JSON integer out of range",
    });
  });

  it("a list param longer than graphql.listItemsMax: -32006, not forwarded, not charged", async () => {
    const core = t.devnet.cores.get("mainnet")!;
    const calls = core.stats.calls;
    const spent = await charged(async () => {
      const res = await post(
        url(),
        rpc("gettxoutproof", [[HAL_TXID, HAL_TXID, HAL_TXID, HAL_TXID]]),
      );
      expect(res.status).toBe(200);
      expect(res.json).toEqual({
        jsonrpc: "2.0",
        error: {
          code: -32006,
          message: "params[0]: 4 items in one list, at most 3",
          data: { code: "LIMIT_EXCEEDED", limit: 3 },
        },
        id: 1,
      });
      const named = await post(
        url(),
        rpc("testmempoolaccept", { rawtxs: ["00", "00", "00", "00"] }),
      );
      expect((named.json as { error: { code: number } }).error.code).toBe(-32006);
    });
    expect(spent).toBe(0);
    expect(core.stats.calls).toBe(calls);
    const rows = await auditRecords(
      t.gateway.app.db,
      {},
      ["method", "outcome", "error_code", "charged_cc"],
      { newestFirst: true, limit: 1 },
    );
    expect(rows).toEqual([
      {
        method: "testmempoolaccept",
        outcome: "rejected",
        error_code: "LIMIT_EXCEEDED",
        charged_cc: 0,
      },
    ]);
    // Within the bound the call is Core's to answer.
    await post(url(), rpc("gettxoutproof", [[HAL_TXID, HAL_TXID, HAL_TXID]]));
    expect(core.stats.calls).toBe(calls + 1);
  });

  it("an unknown named parameter is refused", async () => {
    expect(await errorOf({ txid: HAL_TXID, verbosityy: 1 })).toEqual({
      code: -8,
      message: "Unknown named parameter verbosityy",
    });
  });
});

describe("answers from the node are passed through and charged", () => {
  it("-5 for an unknown transaction, charged 200 CC", async () => {
    const spent = await charged(async () => {
      expect(await errorOf(["00".repeat(32)])).toEqual({
        code: -5,
        message:
          "No such mempool or blockchain transaction. Use gettransaction for wallet transactions.",
      });
    });
    expect(spent).toBe(200);
  });

  it("the genesis coinbase is the node's to refuse, even with a bad verbosity", async () => {
    expect(await errorOf([GENESIS_COINBASE, "x"])).toEqual({
      code: -5,
      message:
        "The genesis block coinbase is not considered an ordinary transaction and cannot be retrieved",
    });
  });

  it("block-scoped look-ups: unknown block, and a tx not in the given block", async () => {
    expect(await errorOf([HAL_TXID, 0, "00".repeat(32)])).toEqual({
      code: -5,
      message: "Block hash not found",
    });
    const block1 = "00000000839a8e6886ab5951d76f411475428afc90947ee320161bbf18eb6048";
    expect(await errorOf([HAL_TXID, 0, block1])).toEqual({
      code: -5,
      message:
        "No such transaction found in the provided block. Use gettransaction for wallet transactions.",
    });
  });
});

describe("the JSON-RPC envelope", () => {
  it("-32700 for a body that is not JSON, with HTTP 200 and id null", async () => {
    const res = await post(url(), "{not json");
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      jsonrpc: "2.0",
      error: { code: -32700, message: "Parse error" },
      id: null,
    });
  });

  it("-32700 for a \\u escape leaving half a surrogate pair alone, as Core's reader refuses it; a whole pair is read", async () => {
    const ids = [String.raw`"\udc00"`, String.raw`"a\ud800"`, String.raw`"\uD800\u0041"`];
    for (const id of ids) {
      const res = await post(url(), `{"jsonrpc":"2.0","id":${id},"method":"getblockcount"}`);
      expect(res.status).toBe(200);
      expect(res.json).toEqual({
        jsonrpc: "2.0",
        error: { code: -32700, message: "Parse error" },
        id: null,
      });
    }
    const key = String.raw`{"jsonrpc":"2.0","id":1,"method":"getblockcount","\udfff":1}`;
    expect(((await post(url(), key)).json as { error: { code: number } }).error.code).toBe(-32700);
    // A pair escaped, and the character as it is, are one code point: echoed as sent.
    for (const id of [String.raw`"\ud83d\ude00"`, '"😀"']) {
      const res = await post(url(), `{"jsonrpc":"2.0","id":${id},"method":"getblockcount"}`);
      expect((res.json as { id: unknown }).id).toBe("😀");
    }
  });

  it("-32700 for JSON that is neither object nor array", async () => {
    const res = await post(url(), "42");
    expect((res.json as { error: { message: string } }).error.message).toBe(
      "Top-level object parse error",
    );
  });

  it("-32600 for invalid request objects, echoing the id", async () => {
    const cases: [unknown, string][] = [
      [{ jsonrpc: "2.0", id: 3 }, "Missing method"],
      [{ jsonrpc: "2.0", id: 3, method: 5 }, "Method must be a string"],
      [
        { jsonrpc: "2.0", id: 3, method: "getrawtransaction", params: "x" },
        "Params must be an array or object",
      ],
    ];
    for (const [body, message] of cases) {
      const res = await post(url(), body);
      expect(res.status).toBe(200);
      expect(res.json).toEqual({ jsonrpc: "2.0", error: { code: -32600, message }, id: 3 });
    }
  });

  it("an unknown jsonrpc version is answered the legacy way, as Core does: HTTP 400", async () => {
    const res = await post(url(), { jsonrpc: "3.0", id: 3, method: "getrawtransaction" });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      result: null,
      error: { code: -32600, message: "JSON-RPC version not supported" },
      id: 3,
    });
  });

  it("-32601 for a method the backend does not offer, not forwarded, not charged", async () => {
    const before = t.devnet.cores.get("mainnet")!.stats.calls;
    const spent = await charged(async () => {
      const res = await post(url(), rpc("stop", []));
      expect(res.json).toEqual({
        jsonrpc: "2.0",
        error: { code: -32601, message: "Method not found" },
        id: 1,
      });
    });
    expect(spent).toBe(0);
    expect(t.devnet.cores.get("mainnet")!.stats.calls).toBe(before);
  });

  it("refuses notifications instead of executing them unseen", async () => {
    const res = await post(url(), {
      jsonrpc: "2.0",
      method: "getrawtransaction",
      params: [HAL_TXID],
    });
    expect(res.status).toBe(200);
    expect((res.json as { error: { code: number } }).error.code).toBe(-32600);
  });

  it("keeps id literals as sent", async () => {
    const res = await post(
      url(),
      `{"jsonrpc":"2.0","id":1.50,"method":"getrawtransaction","params":["${HAL_TXID}"]}`,
    );
    expect(res.text.endsWith(',"id":1.50}')).toBe(true);
  });

  it("an empty batch is [], an oversized one is refused whole", async () => {
    expect((await post(url(), [])).json).toEqual([]);
    const res = await post(
      url(),
      Array.from({ length: 6 }, (_, i) => rpc("getrawtransaction", [HAL_TXID], i)),
    );
    expect((res.json as { error: { code: number } }).error.code).toBe(-32600);
  });

  it("a body over the limit: 413 with a JSON-RPC error", async () => {
    const res = await post(url(), rpc("getrawtransaction", ["a".repeat(5000)]));
    expect(res.status).toBe(413);
    expect((res.json as { error: { data: { code: string } } }).error.data.code).toBe(
      "PAYLOAD_TOO_LARGE",
    );
  });
});

describe("routes", () => {
  it("404 for an unknown backend or network, 405 for GET, 200 for /healthz", async () => {
    expect((await post(`${t.url}/nope/mainnet/${token}`, {})).status).toBe(404);
    expect((await post(`${t.url}/node/mainnet2/${token}`, {})).status).toBe(404);
    // No token at all is 401, not 404 (test/http/token-header.security.test.ts).
    expect((await post(`${t.url}/node/mainnet`, {})).status).toBe(401);
    expect((await fetch(url())).status).toBe(405);
    const health = await fetch(`${t.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });
  });

  it("an unreachable node: 503, not charged", async () => {
    const core = t.devnet.cores.get("mainnet")!;
    await core.close();
    const spent = await charged(async () => {
      const res = await post(url(), rpc("getrawtransaction", [HAL_TXID]));
      expect(res.status).toBe(503);
      expect((res.json as { error: { data: { code: string } } }).error.data.code).toBe(
        "UPSTREAM_UNAVAILABLE",
      );
    });
    expect(spent).toBe(0);
  });
});
