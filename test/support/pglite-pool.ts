import type { PGlite } from "@electric-sql/pglite";
import type { Database } from "../../src/db/database.ts";
import { migrate } from "../../src/db/migrate.ts";
import { createPglite, wrapPglite } from "../../src/db/pglite.ts";
import { openQueue } from "../../src/webhooks/queue.ts";

/**
 * In-memory PGlite stores for test gateways, used again once their gateway has closed: loading
 * the snapshot (its tarball unpacked file by file into WebAssembly's file system) is most of a
 * store's start, and test files start hundreds. Each store is loaded with pg-boss's tables and the
 * webhooks' queue in it, as a gateway's first start leaves them (src/webhooks/queue.ts), so that
 * each gateway's start finds them, as every later start of a gateway does, instead of installing
 * them anew (the install path is the PostgreSQL schemas' and the folders' in `npm start`'s tests).
 * A store comes back only as it started: its session discarded, its tables emptied with their
 * sequences restarted and the rows a new store holds put back, and then its catalogue, sequences
 * and rows compared with those of a store just loaded; anything else (an object made since, a row
 * left in a table it cannot empty) closes it for good. Idle stores are kept per worker: they hold
 * no file's state, only the snapshot's.
 */
const IDLE_MAX = 2;
const idle: PGlite[] = [];
interface Pristine {
  tables: string[];
  /** Each table's rows in a new store, as JSON (tables without rows left out). */
  rows: { table: string; json: string }[];
  /** Each table's size on disk in a new store. */
  bytes: Map<string, number>;
  schemas: string[];
  sizes: string;
  print: string;
}
let pristine: Pristine | undefined;
/**
 * Per idle store, where each row of the tables with rows stood once it was last reset (see
 * `rowPlaces`): a table whose rows all stand there still, at the same size, was not written to.
 */
const placed = new WeakMap<PGlite, string[]>();

/** A store as new from `snapshot` (migrated, as openDatabase leaves it); closing it gives it back. */
export async function pooledPglite(snapshot: Blob): Promise<Database> {
  const pg = idle.pop() ?? (await loaded(snapshot));
  return lend(pg);
}

async function loaded(snapshot: Blob): Promise<PGlite> {
  const pg = await createPglite("memory://", { fromSnapshot: snapshot });
  await migrate(wrapPglite(pg));
  const { boss, queueDb } = await openQueue(wrapPglite(pg));
  await boss.stop({ graceful: false, close: false, wait: true });
  await queueDb.close();
  if (!pristine) {
    const { rows } = await pg.query<{ name: string }>(
      `SELECT format('%I.%I', schemaname, tablename) AS name FROM pg_tables
       WHERE schemaname NOT IN ('pg_catalog', 'information_schema') ORDER BY 1`,
    );
    const tables = rows.map((r) => r.name);
    pristine = {
      tables,
      rows: await tableRows(pg, tables),
      bytes: await relationSizes(pg),
      schemas: await schemas(pg),
      sizes: await sizes(pg),
      print: await fingerprint(pg, tables),
    };
  }
  return pg;
}

async function tableRows(pg: PGlite, tables: string[]): Promise<Pristine["rows"]> {
  const out: Pristine["rows"] = [];
  for (const table of tables) {
    const { rows } = await pg.query<{ json: string | null }>(
      `SELECT json_agg(r)::text AS json FROM ${table} r`,
    );
    if (rows[0]?.json) out.push({ table, json: rows[0].json });
  }
  return out;
}

/**
 * The PGlite under a new identity: the prepared statements of src/db/pglite-prepared.ts are kept
 * per session object, so each lending starts with none, as a new store does. Once closed, every
 * call fails, as on a closed PGlite.
 */
function lend(pg: PGlite): Database {
  let closed = false;
  const session = new Proxy(pg, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if (closed) return Promise.reject(new Error("PGlite is closed"));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  const db = wrapPglite(session);
  let closing: Promise<void> | undefined;
  return {
    ...db,
    close() {
      closed = true;
      closing ??= giveBack(pg);
      return closing;
    },
  };
}

async function giveBack(pg: PGlite): Promise<void> {
  const { tables, rows, print } = pristine!;
  try {
    await pg.exec("DISCARD ALL");
    for (const made of (await schemas(pg)).filter((s) => !pristine!.schemas.includes(s))) {
      await pg.exec(`DROP SCHEMA "${made}" CASCADE`);
    }
    // Emptied: those written to since (any other is as the snapshot left it, and emptying
    // each is most of the time here). A table that holds rows in a new store is emptied and
    // filled again when written to: grown, or its rows not where they stood (an insert, update,
    // delete or lock changes them); on a store's first reset, whatever it holds.
    const sizes = await relationSizes(pg);
    const before = placed.get(pg);
    const now = before ? await rowPlaces(pg) : [];
    const refilled = rows.filter((_row, i) => !before || now[i] !== before[i]);
    const emptied = tables.filter(
      (t) => refilled.some((r) => r.table === t) || sizes.get(t) !== pristine!.bytes.get(t),
    );
    // The ledger's tables refuse TRUNCATE by trigger (migration 011): replica mode fires none.
    await pg.exec("SET session_replication_role = replica");
    // CASCADE: a table that refers to an emptied one is emptied too, written to or not.
    if (emptied.length > 0)
      await pg.exec(`TRUNCATE ${emptied.join(", ")} RESTART IDENTITY CASCADE`);
    for (const { table, json } of refilled) {
      await pg.query(
        `INSERT INTO ${table} SELECT * FROM json_populate_recordset(NULL::${table}, $1)`,
        [json],
      );
    }
    await pg.exec("RESET session_replication_role");
    // TRUNCATE leaves its indexes unsized (no pages, tuples unknown) where a new store has them
    // as CREATE INDEX sized them: the planner reads both, so they are put back.
    await pg.exec(`UPDATE pg_class c SET relpages = s.relpages, reltuples = s.reltuples
      FROM (VALUES ${pristine!.sizes}) AS s(oid, relpages, reltuples)
      WHERE c.oid = s.oid AND (c.relpages, c.reltuples) IS DISTINCT FROM (s.relpages, s.reltuples)`);
    // Statistics an ANALYZE left (the webhooks' queue runs one on PGlite): a new store has none,
    // and the planner would plan by them.
    await pg.exec(
      `DELETE FROM pg_statistic WHERE starelid IN (SELECT c.oid FROM pg_class c
         JOIN pg_namespace n ON n.oid = c.relnamespace WHERE ${OURS})`,
    );
    if (idle.length < IDLE_MAX && (await fingerprint(pg, tables)) === print) {
      placed.set(pg, await rowPlaces(pg));
      idle.push(pg);
      return;
    }
  } catch {
    // Not as it started (a transaction left open, say): not used again.
  }
  await pg.close();
}

/**
 * Each relation's size as the planner reads it, as SQL rows (oid, relpages, reltuples): every
 * store loaded from one snapshot has the same oids.
 */
async function sizes(pg: PGlite): Promise<string> {
  const { rows } = await pg.query<{ row: string }>(
    `SELECT format('(%s::oid, %s, %s::real)', c.oid, c.relpages, c.reltuples) AS row
     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE ${OURS}`,
  );
  return rows.map((r) => r.row).join(", ");
}

/** Each table's size on disk, partitions included: a table written to since has grown. */
async function relationSizes(pg: PGlite): Promise<Map<string, number>> {
  const { rows } = await pg.query<{ name: string; bytes: number }>(
    `SELECT format('%I.%I', n.nspname, c.relname) AS name, pg_relation_size(c.oid)::int AS bytes
     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE c.relkind IN ('r', 'p') AND ${OURS}`,
  );
  return new Map(rows.map((r) => [r.name, r.bytes]));
}

/** Each table with rows in a new store: where its rows stand, and the transactions that wrote them. */
async function rowPlaces(pg: PGlite): Promise<string[]> {
  const places = pristine!.rows.map(
    ({ table }) =>
      `(SELECT string_agg(format('%s:%s:%s', ctid, xmin, xmax), ',' ORDER BY ctid) FROM ${table})`,
  );
  const { rows } = await pg.query<{ places: string[] }>(
    `SELECT ARRAY[${places.join(", ")}] AS places`,
  );
  return rows[0]!.places;
}

async function schemas(pg: PGlite): Promise<string[]> {
  const { rows } = await pg.query<{ nspname: string }>("SELECT nspname FROM pg_namespace");
  return rows.map((r) => r.nspname);
}

/** Relations (pg_class joined to pg_namespace as n) outside the system catalogues. */
const OURS = `n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
  AND n.nspname NOT LIKE 'pg_temp%' AND n.nspname NOT LIKE 'pg_toast_temp%'`;

/**
 * The store's objects outside the system catalogues, their sizes and statistics as the planner
 * sees them, its settings, its sequences' values and its rows.
 */
async function fingerprint(pg: PGlite, tables: string[]): Promise<string> {
  const { rows } = await pg.query<{ objects: string; sequences: string }>(
    `SELECT
       (SELECT string_agg(
          format('%s.%s:%s:%s:%s', n.nspname, c.relname, c.relkind, c.relpages, c.reltuples),
          ',' ORDER BY n.nspname, c.relname)
          FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE ${OURS}) || ','
       || (SELECT count(*) FROM pg_statistic s JOIN pg_class c ON c.oid = s.starelid
            JOIN pg_namespace n ON n.oid = c.relnamespace WHERE ${OURS}) || ','
       || (SELECT string_agg(nspname, ',' ORDER BY nspname) FROM pg_namespace)
       || ','
       || (SELECT md5(string_agg(name || '=' || setting, ',' ORDER BY name)) FROM pg_settings
            WHERE name NOT LIKE '%.%' OR source <> 'default') || ','
       || (SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
            WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')) || ','
       || (SELECT count(*) FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
            WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')) || ','
       || (SELECT count(*) FROM pg_trigger) AS objects,
       (SELECT string_agg(format('%s.%s=%s', schemaname, sequencename, last_value), ','
          ORDER BY schemaname, sequencename) FROM pg_sequences) AS sequences`,
  );
  const counted = tables
    .map((t) => `(SELECT md5(coalesce(string_agg(r::text, ',' ORDER BY r::text), '')) FROM ${t} r)`)
    .join(" || ");
  const data = await pg.query<{ rows: string }>(`SELECT ${counted} AS rows`);
  return `${rows[0]!.objects}|${rows[0]!.sequences}|${data.rows[0]!.rows}`;
}
