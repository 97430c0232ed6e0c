import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { startGateway } from "../../src/app/app.ts";
import {
  resolveElectrumUpstreams,
  resolveGraphUpstreams,
  resolveNodeUpstreams,
} from "../../src/app/upstreams.ts";
import { parseConfig } from "../../src/config/load.ts";
import { migrate } from "../../src/db/migrate.ts";
import { loadMigrations } from "../../src/db/migration-files.ts";
import { openDatabase } from "../../src/db/open.ts";
import { auditOf } from "../support/audit.ts";
import { HAL_TXID, POSTGRES_URL, rpc } from "../support/harness.ts";
import { expectSpentExactly, fundedAccount } from "../support/ledger.ts";
import { CONTRACT_SQL, EXPAND_SQL, laterBuilds } from "../support/migrations.ts";
import { blockgate, gatewayProcesses, type SchemaStore } from "../support/spawn.ts";

/**
 * A rolling upgrade on one PostgreSQL schema (docs/operators/migrations.md). Version N is this
 * build, run as operators run it: a gateway process with `database.migrate: false`. Version N+1 is
 * this build with one more migration, an expand: its migrator is given a later build's folder,
 * and its gateway runs in the test's process on a store checked against that folder.
 */
const PRICE = 200; // getrawtransaction on mainnet

const processes = gatewayProcesses("u");
const laterBuild = laterBuilds();
const NEXT = { "990_upgrade_notes.sql": EXPAND_SQL };
const AFTER = { ...NEXT, "991_notes_gone.sql": CONTRACT_SQL };

/** Version N, which checks the schema rather than migrate it. */
const versionN = (s: SchemaStore, name: string) =>
  processes.spawn(name, s, { connections: 4, settings: { database: { migrate: false } } });

/** Version N+1 in this process, its store checked against `migrationsDir`. */
async function versionNext(s: SchemaStore, migrationsDir: string) {
  const config = parseConfig({
    networks: ["mainnet"],
    server: { port: 0 },
    database: { migrate: false },
    cache: { bytesMax: 0 },
    demo: { enabled: false },
    events: { pollMs: 0 },
  });
  const store = openDatabase({
    ...{ databaseUrl: POSTGRES_URL, schema: s.schema, pgliteDir: "", poolSize: 4 },
    ...{ migrations: "check", migrationsDir },
  });
  return startGateway(config, {
    store,
    noAdminFile: true,
    nodeUpstreams: resolveNodeUpstreams(config, processes.devnet),
    graphUpstreams: resolveGraphUpstreams(config, processes.devnet),
    electrumUpstreams: resolveElectrumUpstreams(config, processes.devnet),
    logDestination: new Writable({ write: (_chunk, _enc, done) => done() }),
  });
}

/** One getrawtransaction through `url`: its status and the request id it was answered with. */
async function call(url: string, token: string) {
  const res = await fetch(`${url}/node/mainnet/${token}`, {
    method: "POST",
    body: JSON.stringify(rpc("getrawtransaction", [HAL_TXID])),
  });
  await res.text();
  return { status: res.status, requestId: res.headers.get("x-request-id") };
}

describe(
  "migrations in a rolling upgrade (PostgreSQL, gateway processes)",
  { timeout: 60_000 },
  () => {
    it("a gateway that does not migrate refuses a schema older than it needs; blockgate migrate applies it", async () => {
      const s = await processes.store(2, "leave");
      await expect(versionN(s, "refused")).rejects.toThrow(
        /exited 1 before ready:[\s\S]*blockgate failed to start: the database schema is older than this version needs \(001_ledger\.sql, .*\); database\.migrate is false: run blockgate migrate/,
      );
      const own = loadMigrations();
      const env = { DATABASE_URL: s.databaseUrl, BLOCKGATE_CONFIG: "" };
      const job = await blockgate(["migrate"], env);
      expect(job.code).toBe(0);
      expect(job.stdout.split("\n")).toEqual([
        `applied ${own.length} migrations to PostgreSQL (test.${s.schema}):`,
        ...own.map((m) => `${m.name}\texpand`),
        `schema at ${own.at(-1)!.name} (${own.length} migrations)`,
        "",
      ]);
      const unreachable = await blockgate(["migrate"], {
        DATABASE_URL: "postgres://postgres:secret@127.0.0.1:1/test",
        BLOCKGATE_CONFIG: "",
      });
      expect(unreachable.code).toBe(1);
      expect(unreachable.stderr).toMatch(
        /^blockgate: cannot open the database \(PostgreSQL at 127\.0\.0\.1:1\/test\): connect ECONNREFUSED/,
      );
      expect(unreachable.stderr).not.toContain("secret");
    });

    it("N serves beside N+1 after N+1's expand, both charging and auditing; N+1's contract makes N refuse", async () => {
      const s = await processes.store(2);
      const next = laterBuild(NEXT);
      // The upgrade's one-shot job, as N+1's `blockgate migrate` would run it.
      expect((await migrate(s.db, next)).map((m) => m.name)).toEqual(["990_upgrade_notes.sql"]);
      const [n, nPlus1] = await Promise.all([versionN(s, "n"), versionNext(s, next)]);
      try {
        const paid = 5;
        const { id, token } = await fundedAccount(s.db, "rolling", paid * PRICE);
        // Alternately, so each version charges while the other holds part of the credits.
        const answers = [];
        for (let i = 0; i < paid + 2; i++)
          answers.push(await call(i % 2 ? nPlus1.url : n.url, token));
        expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 429, 429]);
        for (const a of answers) {
          expect(await auditOf(s.db, a.requestId, ["charged_cc"])).toEqual([
            { charged_cc: a.status === 200 ? PRICE : 0 },
          ]);
        }
        await expectSpentExactly(s.db, id, { paid, refused: 2, price: PRICE });
      } finally {
        await nPlus1.close();
      }

      // The release after N+1 contracts: N, which cannot know what it removed, refuses to start.
      await migrate(s.db, laterBuild(AFTER));
      const refusal =
        "the database schema is newer than this version and not compatible with it: 991_notes_gone.sql (contract) applied by a newer version is not an expand migration; run a version that knows it";
      await expect(versionN(s, "after")).rejects.toThrow(`blockgate failed to start: ${refusal}`);
    });
  },
);
