import { EventEmitter } from "node:events";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { PGlite, types } from "@electric-sql/pglite";
import type { Database, Queryable } from "./database.ts";
import { preparedQueryable } from "./pglite-prepared.ts";

export interface PgliteOptions {
  /**
   * A data-dir tarball (`PGlite#dumpDataDir`, or its file) to start a new database from instead
   * of running initdb: tests start `memory://` stores from one migrated snapshot, and a new
   * folder starts from the one the build made. A folder that holds a database already opens as
   * it is.
   */
  fromSnapshot?: string | Blob | undefined;
}

/** Embedded PostgreSQL (WebAssembly): a folder on disk, or `memory://` for tests. */
export async function openPglite(dataDir: string, opts: PgliteOptions = {}): Promise<Database> {
  return wrapPglite(await createPglite(dataDir, opts));
}

/** The PGlite itself, for what the Database interface does not offer (dumping a snapshot). */
export async function createPglite(dataDir: string, opts: PgliteOptions = {}): Promise<PGlite> {
  const inMemory = dataDir.startsWith("memory://");
  if (!inMemory) mkdirSync(dataDir, { recursive: true });
  const isNew = inMemory || !existsSync(join(dataDir, "PG_VERSION"));
  const from = isNew ? opts.fromSnapshot : undefined;
  const snapshot = typeof from === "string" ? new Blob([readFileSync(from)]) : from;
  return PGlite.create(dataDir, {
    // PostgreSQL zeroes its shared buffers at every start: PGlite's default pool takes a second
    // of WebAssembly to clear; a small pool holds our embedded database many times over and
    // opens faster. Production runs PostgreSQL itself. A new WAL segment is made by writing its
    // last byte rather than zero-filled: in a memory store each zeroing write grew the file by
    // copying it, stalling the gateway's thread at every new segment. PGlite's fsync is off
    // either way, so what a commit survives is unchanged.
    startParams: [
      ...PGlite.defaultStartParams,
      ...["-c", "shared_buffers=16MB", "-c", "wal_init_zero=off"],
    ],
    // Same numbers as the pg driver gives: int8 as a JS number (all our values fit in 2^53).
    parsers: { [types.INT8]: (v: string) => Number(v) },
    ...(snapshot ? { loadDataDir: snapshot } : {}),
  });
}

export function wrapPglite(db: PGlite): Database {
  const queryable = (q: Pick<PGlite, "query">): Queryable => ({
    async query<R extends object>(sql: string, params?: readonly unknown[]) {
      const res = await q.query<R>(sql, params as unknown[] | undefined);
      return { rows: res.rows };
    },
  });
  // One process holds a PGlite store: signals need not leave it.
  const signals = new EventEmitter();
  signals.setMaxListeners(0);
  // Every statement outside a transaction is parsed and planned once (pglite-prepared.ts).
  const prepared = preparedQueryable(db);
  return {
    kind: "pglite",
    namespace: "pglite",
    ...prepared,
    // Planned with sequential scans off, as PostgreSQL's settle connections are: the settle
    // statement may then vouch for its own references (settle-queue.ts).
    settles: { ...preparedQueryable(db, { indexPlans: true }), planned: "index" },
    async notify(channel, payload) {
      signals.emit(channel, payload);
    },
    listen(channel, fn) {
      signals.on(channel, fn);
    },
    listening: () => true,
    lead(_name, onChange) {
      onChange(true);
      return { leading: () => true, firstTry: Promise.resolve(true), stop: async () => {} };
    },
    // PGlite is one connection: its transactions run one at a time, which is what makes them safe.
    transaction: (fn) => db.transaction((tx) => fn(queryable(tx))),
    async exec(sql: string) {
      await db.exec(sql);
    },
    async close() {
      await db.close();
    },
  };
}
