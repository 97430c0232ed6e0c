import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditRecords } from "../support/audit.ts";
import { startTestGateway, type TestGateway } from "../support/harness.ts";

/**
 * A body the unified API does not read (no content type, text/plain, XML): 415 in GraphQL's
 * protocol, audited as UNSUPPORTED_MEDIA_TYPE, not charged. Yoga's own answer is a bare 415 with
 * no body, which bench/fuzz flagged as no error in the route's protocol; its
 * audit record said INTERNAL, as if the gateway had failed.
 */
describe("unified API: a body of a type it does not read", () => {
  let t: TestGateway;
  let url: string;
  let accountId: number;
  beforeAll(async () => {
    t = await startTestGateway();
    const account = await t.account("media", 1_000_000);
    accountId = account.id;
    url = `${t.url}/gateway/mainnet/${account.token}`;
  });
  afterAll(() => t?.close());

  it.each([
    ["text/plain", "text/plain"],
    ["XML", "application/xml"],
    ["no content type", undefined],
  ])("%s: 415 UNSUPPORTED_MEDIA_TYPE with an errors array, uncharged", async (_name, type) => {
    const res = await fetch(url, {
      method: "POST",
      headers: type === undefined ? {} : { "content-type": type },
      // Without a type fetch would call a string text/plain: bytes go as they are.
      body:
        type === undefined
          ? Buffer.from('{"query":"{ __typename }"}')
          : '{"query":"{ __typename }"}',
    });
    expect(res.status).toBe(415);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const body = (await res.json()) as {
      errors: { message: string; extensions: { code: string } }[];
    };
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0]?.extensions.code).toBe("UNSUPPORTED_MEDIA_TYPE");
    expect(body.errors[0]?.message).toMatch(/application\/json/);
    const rows = await auditRecords(
      t.gateway.app.db,
      { accountId: accountId },
      ["error_code", "charged_cc", "http_status"],
      { newestFirst: true, limit: 1 },
    );
    expect(rows[0]).toEqual({
      error_code: "UNSUPPORTED_MEDIA_TYPE",
      charged_cc: 0,
      http_status: 415,
    });
  });
});
