import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runDbCommand } from "../../src/cli/commands.ts";
import { parseConfig } from "../../src/config/load.ts";
import type { Database } from "../../src/db/database.ts";
import { openDatabase } from "../../src/db/open.ts";
import { POSTGRES_URL, type StoreKind } from "../support/harness.ts";
import { blockgate } from "../support/spawn.ts";

/** A fresh store for CLI processes: a PGlite folder on disk, or a schema on the PostgreSQL server. */
function cliStore(store: StoreKind): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {};
  const schema = `c_${randomBytes(5).toString("hex")}`;
  beforeAll(async () => {
    if (store === "pglite") {
      const dir = mkdtempSync(join(tmpdir(), "bg-cli-"));
      const configFile = join(dir, "blockgate.yaml");
      writeFileSync(configFile, `database:\n  pgliteDir: ${join(dir, "db")}\n`);
      env.BLOCKGATE_CONFIG = configFile;
      env.DATABASE_URL = "";
    } else {
      const client = new pg.Client({ connectionString: POSTGRES_URL });
      await client.connect();
      await client.query(`CREATE SCHEMA ${schema}`);
      await client.end();
      const url = new URL(POSTGRES_URL);
      url.searchParams.set("options", `-c search_path=${schema}`);
      env.DATABASE_URL = url.toString();
    }
  });
  afterAll(async () => {
    if (store === "postgres") {
      const client = new pg.Client({ connectionString: POSTGRES_URL });
      await client.connect();
      await client.query(`DROP SCHEMA ${schema} CASCADE`);
      await client.end();
    }
  });
  return env;
}

// Each command is its own process, so every step also proves that what one process wrote the next
// one reads. On PGlite each process opens the folder afresh (the first with initdb), which is
// slow: the store's part is proved by a short flow there, and the CLI's commands in
// full on PostgreSQL (they run the same SQL through the same Database interface).
describe.each<StoreKind>(["pglite", "postgres"])("blockgate CLI (%s)", (store) => {
  const env = cliStore(store);

  it("creates an account, issues a token, grants credits and shows usage, one process each", async () => {
    const created = await blockgate(["account", "create", "acme", "--credits", "1000"], env);
    expect(created.stdout).toMatch(/account acme \(id \d+\) created, balance 1000 CC/);

    const issued = await blockgate(["token", "issue", "acme", "--label", "ci"], env);
    expect(issued.stdout).toMatch(/bgt_[A-Za-z0-9_-]{43}/);

    expect((await blockgate(["credits", "grant", "acme", "500"], env)).stdout).toContain(
      "balance 1500 CC",
    );
    const usage = await blockgate(["usage", "acme"], env);
    expect(usage.stdout).toContain("balance 1500 CC");

    const check = await blockgate(["ledger", "check"], env);
    expect(check.code).toBe(0);
    expect(check.stdout).toMatch(/^ok /);
    // Nothing on standard error: nor V8's word, should a Node release drop the flag a command on
    // PGlite sets (src/cli/main.ts).
    for (const ran of [created, issued, usage, check]) expect(ran.stderr).toBe("");
  }, 120_000);
});

// A line is parsed before any store is opened, so what a mistake prints is the same on both.
describe("blockgate CLI without a store", () => {
  it("answers a command it does not know with the usage, without opening (or creating) the store", async () => {
    const dir = mkdtempSync(join(tmpdir(), "bg-cli-"));
    const configFile = join(dir, "blockgate.yaml");
    writeFileSync(configFile, `database:\n  pgliteDir: ${join(dir, "db")}\n`);
    const out = await blockgate(["acount", "create", "acme"], {
      BLOCKGATE_CONFIG: configFile,
      DATABASE_URL: "",
    });
    expect(out.code).toBe(2);
    expect(out.stderr).toContain("usage: blockgate");
    expect(existsSync(join(dir, "db"))).toBe(false);
  });
});

/**
 * What the commands make of their lines on PostgreSQL, run as the CLI runs them once the line is
 * read (runDbCommand): what a process adds, its output streams and exit code and one process
 * reading what another wrote, the tests above show on both stores.
 */
describe("blockgate CLI tokens and refusals (postgres)", () => {
  const schema = `c_${randomBytes(5).toString("hex")}`;
  const config = parseConfig({});
  let db: Database;
  beforeAll(async () => {
    db = await openDatabase({ databaseUrl: POSTGRES_URL, schema, pgliteDir: "", poolSize: 2 });
  });
  afterAll(async () => {
    await db?.close();
    const client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
  });
  const run = (...argv: string[]) => runDbCommand(db, argv, config);

  it("lists tokens by hint, revokes once, refuses a negative grant and a duplicate account", async () => {
    await run("account", "create", "acme", "--credits", "1000");
    const issued = await run("token", "issue", "acme", "--label", "ci");
    const token = issued.text.match(/bgt_[A-Za-z0-9_-]{43}/)?.[0];
    expect(token).toBeDefined();

    const listed = await run("token", "list", "acme");
    expect(listed.text).toContain(`bgt_…${token!.slice(-4)}`);
    expect(listed.text).not.toContain(token!.slice(4, 20));

    expect((await run("credits", "grant", "acme", "-5")).code).toBe(2);
    // Refused before anything is written: no account without the credits it was asked with.
    const zero = await run("account", "create", "zero", "--credits", "0");
    expect(zero.code).toBe(2);
    expect(zero.text).toContain("usage: blockgate account create <name> [--credits N]");
    expect((await run("account", "list")).text).not.toContain("zero");

    const tokenId = listed.text.split("\t")[0]!;
    expect((await run("token", "revoke", tokenId)).text).toContain("revoked");
    expect((await run("token", "revoke", tokenId)).code).toBe(1);

    const dup = await run("account", "create", "acme");
    expect(dup.code).toBe(2);
    expect(dup.text).toContain('account "acme" exists');

    const check = await run("ledger", "check");
    expect(check.code).toBe(0);
  });
});
