import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HAL_TXID, post, rpc, startTestGateway, type TestGateway } from "../support/harness.ts";
import { operatorCredential } from "../support/operator.ts";

const operator = operatorCredential();
let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway("pglite", { operator: { tokenSha256: [operator.sha256] } });
});
afterAll(() => t.close());

/** /metrics as Prometheus scrapes it: with the operator's bearer token. */
const scrape = () => fetch(`${t.url}/metrics`, { headers: operator.headers });

const metric = (text: string, name: string, labels: string) =>
  Number(
    text
      .split("\n")
      .find((l) => l.startsWith(`${name}{${labels}}`))
      ?.split(" ")[1] ?? Number.NaN,
  );

describe("/metrics", () => {
  it("counts requests by route and status, credits charged, upstream health and latency", async () => {
    const { token } = await t.account("metered", 10_000);
    await post(`${t.url}/node/mainnet/${token}`, rpc("getrawtransaction", [HAL_TXID]));
    await post(`${t.url}/node/mainnet/${token}`, rpc("getrawtransaction", [HAL_TXID]));
    await post(`${t.url}/node/mainnet/bgt_${"q".repeat(43)}`, rpc("getrawtransaction", [HAL_TXID]));
    const res = await scrape();
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/plain");
    const text = await res.text();
    expect(
      metric(text, "blockgate_http_requests_total", 'route="node",network="mainnet",status="200"'),
    ).toBe(2);
    expect(
      metric(text, "blockgate_http_requests_total", 'route="node",network="mainnet",status="401"'),
    ).toBe(1);
    expect(metric(text, "blockgate_credits_charged_total", 'route="node",network="mainnet"')).toBe(
      400,
    );
    const core = new URL(t.devnet.cores.get("mainnet")!.url);
    const upstream = `backend="node",network="mainnet",upstream="${core.hostname}:${core.port}"`;
    expect(metric(text, "blockgate_upstream_up", upstream)).toBe(1);
    expect(
      metric(text, "blockgate_upstream_request_duration_seconds_count", `${upstream},outcome="ok"`),
    ).toBe(2);
    expect(text).toContain(
      'blockgate_http_request_duration_seconds_bucket{le="0.005",route="node"}',
    );
    expect(text).not.toContain(token.slice(4));
    expect(text).not.toContain("q".repeat(20));
  });

  it("a node that goes down shows as down", async () => {
    const { token } = await t.account("metered2", 10_000);
    await t.devnet.cores.get("signet")!.close();
    await post(`${t.url}/node/signet/${token}`, rpc("getrawtransaction", [HAL_TXID]));
    const text = await (await scrape()).text();
    expect(text).toMatch(
      /blockgate_upstream_up\{backend="node",network="signet",upstream="[^"]+"\} 0/,
    );
  });
});
