// The indexer's answer over server.responseBytesMax (devnet's indexer does not say its length, so
// it is counted as it comes): RESPONSE_TOO_LARGE, not "unavailable"; charged as answered, at the
// query's price (the indexer did the work); asked once; logged once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditRecords } from "../support/audit.ts";
import { startTestGateway, type TestGateway } from "../support/harness.ts";
import { expectLedgerOk } from "../support/ledger.ts";
import { viaGateway, viaIndexer } from "./support.ts";

const LIMIT = 64 * 1024;
const QUERY = "{ block(limit: 1000) { hash height transactions { hash size_bytes } } }";

let t: TestGateway;
let token: string;
let accountId: number;
beforeAll(async () => {
  t = await startTestGateway("pglite", {
    networks: ["mainnet"],
    server: { responseBytesMax: LIMIT },
    upstreams: { node: { mainnet: ["devnet"] }, graph: { mainnet: ["devnet", "devnet"] } },
    failover: { hedge: { enabled: false } },
  });
  ({ token, id: accountId } = await t.account("rows", 10_000_000));
});
afterAll(() => t.close());

describe("an indexer answer over the limit", () => {
  it("is larger than the limit when asked directly", async () => {
    const direct = await viaIndexer(t, { query: QUERY });
    expect(JSON.stringify(direct.json).length).toBeGreaterThan(LIMIT);
  });

  it("is RESPONSE_TOO_LARGE (400), asked once, charged its price, logged once", async () => {
    const forwarded = t.devnet.indexers.get("mainnet")!.stats.httpRequests;
    const res = await viaGateway(t, token, { query: QUERY });
    expect(res.status).toBe(400);
    const errors = (res.json as { errors: { message: string; extensions: unknown }[] }).errors;
    expect(errors).toHaveLength(1);
    expect(errors[0]!.extensions).toEqual({ code: "RESPONSE_TOO_LARGE", limitBytes: LIMIT });
    expect(errors[0]!.message).toMatch(/over the limit of 65536 bytes/);
    expect(t.devnet.indexers.get("mainnet")!.stats.httpRequests - forwarded).toBe(1);
    const charged = Number(res.headers.get("x-credits-charged"));
    expect(charged).toBeGreaterThan(0);
    const requestId = res.headers.get("x-request-id")!;
    const rows = await auditRecords(t.gateway.app.db, { requestId: requestId }, [
      "outcome",
      "error_code",
      "charged_cc",
      "estimated_cc",
    ]);
    expect(rows).toEqual([
      {
        outcome: "too_large",
        error_code: "RESPONSE_TOO_LARGE",
        charged_cc: charged,
        estimated_cc: charged,
      },
    ]);
    const lines = t.logs.filter(
      (l) => l.includes(`"requestId":"${requestId}"`) && !l.includes('"msg":"request"'),
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/"level":30/);
  });

  it("a smaller query goes through, the indexers still up", async () => {
    const res = await viaGateway(t, token, { query: "{ block(limit: 5) { hash } }" });
    expect(res.status).toBe(200);
    const health = await t.gateway.app.indexers
      .get("mainnet")!
      .health({ timeoutMs: 1_000, cacheMs: 0 });
    expect(health.status).toBe("healthy");
  });

  it("the ledger checks out", async () => {
    await expectLedgerOk(t.gateway.app.db, accountId);
  });
});
