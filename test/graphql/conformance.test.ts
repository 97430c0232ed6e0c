import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { auditServer } from "graphql-http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { printGatewaySchema } from "../../src/routes/gateway/schema.ts";
import { startTestGateway, type TestGateway } from "../support/harness.ts";

const CODEGEN = resolve("node_modules/.bin/graphql-codegen");

describe("GraphQL over HTTP", () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway();
  });
  afterAll(() => t.close());

  it("graphql-http's server audit: no MUST audit fails", async () => {
    const { token } = await t.account("audit", 1000);
    const results = await auditServer({ url: `${t.url}/gateway/mainnet/${token}` });
    const failedMusts = results.filter((r) => r.status !== "ok" && r.name.startsWith("MUST"));
    expect(failedMusts.map((r) => `${r.name}: ${"reason" in r ? r.reason : ""}`)).toEqual([]);
    expect(results.filter((r) => r.name.startsWith("MUST")).length).toBeGreaterThan(10);
  });
});

describe("the schema and its typed clients", () => {
  it("schema/gateway.graphql is the printed schema (run `npm run schema` after changing types)", () => {
    expect(readFileSync("schema/gateway.graphql", "utf8")).toBe(printGatewaySchema());
  });

  it("codegen over the committed schema and operations reproduces src/generated/operations.ts", async () => {
    const dir = mkdtempSync(join(tmpdir(), "bg-codegen-"));
    const config = readFileSync("codegen.yml", "utf8").replace(
      "src/generated/operations.ts:",
      `${join(dir, "operations.ts")}:`,
    );
    writeFileSync(join(dir, "codegen.yml"), config);
    // The installed binary itself: npx would add npm's own start to the run.
    await promisify(execFile)(CODEGEN, ["--config", join(dir, "codegen.yml")], {
      timeout: 60_000,
    });
    expect(readFileSync(join(dir, "operations.ts"), "utf8")).toBe(
      readFileSync("src/generated/operations.ts", "utf8"),
    );
  });
});
