import { describe, expect, it } from "vitest";
import { batchSizeFor } from "../../src/webhooks/delivery.ts";

describe("the jobs a webhook worker's fetch takes", () => {
  it("are twenty sends' worth, at most 200, never fewer than the POSTs under way", () => {
    // The default concurrency: a block's messages for 200 endpoints are one batch.
    expect(batchSizeFor(10)).toBe(200);
    expect(batchSizeFor(1)).toBe(20);
    expect(batchSizeFor(5)).toBe(100);
    expect(batchSizeFor(11)).toBe(200);
    expect(batchSizeFor(300)).toBe(300);
  });
});
