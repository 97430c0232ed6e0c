import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runDbCommand } from "../../src/cli/commands.ts";
import { parseConfig } from "../../src/config/load.ts";
import type { Config } from "../../src/config/schema.ts";
import type { Database } from "../../src/db/database.ts";
import { memoryStore } from "../support/harness.ts";

/**
 * The CLI checks a command line before it writes: every refusal is exit 2 with the command's
 * usage, and the store is as it was — no account without its credits, no token without its
 * terms, no option silently ignored.
 */
let db: Database;
let config: Config;
beforeAll(async () => {
  db = await memoryStore();
  config = parseConfig({ plans: { starter: { concurrentCalls: 2 } } });
});
afterAll(() => db.close());

const run = (...argv: string[]) => runDbCommand(db, argv, config);

/** Every row of the tables a command writes, to show a refusal wrote nothing. */
async function store() {
  const tables = ["accounts", "ledger_entries", "tokens", "webhook_endpoints"];
  const out: Record<string, unknown[]> = {};
  for (const table of tables) out[table] = (await db.query(`SELECT * FROM ${table}`)).rows;
  return out;
}

/** Runs a command line that must be refused: exit 2, its usage shown, nothing written. */
async function refused(argv: string[], problem: RegExp | string, usage: string) {
  const before = await store();
  const out = await run(...argv);
  expect(out.code).toBe(2);
  expect(out.text).toMatch(problem);
  expect(out.text).toContain(`usage: blockgate ${usage}`);
  expect(await store()).toEqual(before);
}

describe("account create", () => {
  it("--credits 0 is refused and creates no account", async () => {
    await refused(
      ["account", "create", "zero", "--credits", "0"],
      "account create: --credits: a positive whole number of CC",
      "account create <name> [--credits N]",
    );
    expect(await run("account", "list")).toMatchObject({ text: "no accounts", code: 0 });
    const made = await run("account", "create", "zero", "--credits", "5");
    expect(made).toMatchObject({ code: 0, text: expect.stringMatching(/balance 5 CC$/) });
  });

  it("a bad name, a second name, an option it does not read: refused, nothing written", async () => {
    const usage = "account create <name> [--credits N]";
    await refused(["account", "create", "no spaces"], /account name: 1-64 characters/, usage);
    await refused(["account", "create", "a1", "a2"], 'unexpected argument "a2"', usage);
    await refused(["account", "create", "a1", "--memo", "m"], "unknown option --memo", usage);
    await refused(["account", "create"], "missing argument <name>", usage);
    await refused(["account", "create", "zero"], 'account "zero" exists', usage);
  });
});

describe("every other command", () => {
  beforeAll(async () => {
    await run("account", "create", "acme", "--credits", "100");
    await run("token", "issue", "acme");
  });

  it("credits grant: the amount, then the account, before the grant", async () => {
    const usage = "credits grant <account> <CC> [--memo M]";
    await refused(
      ["credits", "grant", "acme", "0"],
      "amount: a positive whole number of CC",
      usage,
    );
    await refused(["credits", "grant", "acme", "10", "20"], 'unexpected argument "20"', usage);
    await refused(["credits", "grant", "nobody", "10"], 'no account "nobody"', usage);
    await refused(["credits", "grant", "acme", "10", "--credits", "5"], "--credits", usage);
  });

  it("token issue, restrict and rotate: options of another command are not ignored", async () => {
    await refused(
      ["token", "issue", "acme", "--grace", "1h"],
      "unknown option --grace",
      "token issue <account>",
    );
    await refused(
      ["token", "issue", "acme", "--expires", "soon"],
      "--expires: a duration",
      "token issue",
    );
    await refused(["token", "issue", "acme", "--backends", "nope"], /--backends/, "token issue");
    await refused(
      ["token", "restrict", "1", "--backends", "node", "--unrestricted"],
      "either a scope or --unrestricted, not both",
      "token restrict <token-id>",
    );
    await refused(
      ["token", "restrict", "1", "--expires", "30d"],
      "unknown option --expires",
      "token restrict",
    );
    await refused(
      ["token", "rotate", "1", "--grace", "forever"],
      "--grace: a duration",
      "token rotate",
    );
  });

  it("account plan, usage, export, webhooks: checked before anything is written", async () => {
    await refused(["account", "plan", "acme", "gold"], 'no plan "gold"', "account plan");
    await refused(["usage", "acme", "--limit", "0"], "--limit: a whole number from 1", "usage");
    await refused(["export", "acme", "--kind", "csv"], "--kind: one of audit, usage", "export");
    await refused(["export", "acme", "--cycle", "x"], "--cycle: a whole number", "export");
    await refused(["export", "acme", "--cycle", "1"], "--cycle: 0 to 0", "export");
    await refused(["webhook", "add", "1"], "missing argument <url>", "webhook add");
    await refused(
      [
        "webhook",
        "add",
        "1",
        "https://example.com/hook",
        "--event",
        "mempoolFees",
        "--targets",
        "0",
      ],
      "targets: 1 to 25",
      "webhook add",
    );
    await refused(
      ["webhook", "attempts", "1", "--limit", "5000"],
      "--limit: a whole number from 1 to 1000",
      "webhook attempts",
    );
  });

  it("an option the CLI does not know: exit 2 with that command's usage, not an exception", async () => {
    const out = await run("account", "create", "x", "--bogus");
    expect(out.code).toBe(2);
    expect(out.text.split("\n")).toEqual([
      "blockgate account create: unknown option --bogus",
      "usage: blockgate account create <name> [--credits N]",
      "(blockgate account create --help for its options and an example)",
    ]);
  });
});
