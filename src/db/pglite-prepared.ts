import type { PGlite } from "@electric-sql/pglite";
import type { Queryable } from "./database.ts";

/**
 * Statements run through SQL-level PREPARE and EXECUTE on PGlite's one connection. PGlite's
 * `query` parses and plans its text on every call (an unnamed statement), which for the ledger's
 * statements costs more than executing them; a prepared statement is parsed once per connection
 * and its plan kept by PostgreSQL's plan cache, as the pg driver's named statements are.
 * EXECUTE takes no bind parameters, so values go in as quoted literals — what the text protocol
 * sends for a parameter, typed by the statement as a bound value is: strings with their single
 * quotes doubled (standard_conforming_strings is on, so nothing else is special), finite numbers,
 * bigints and booleans as written, dates in ISO 8601 (as PGlite writes them), lists of numbers or
 * of strings as array literals, null as NULL. A value of any other kind, a statement PREPARE
 * does not take, or a text beyond the first STATEMENTS_MAX runs unprepared. EXECUTE goes by the
 * simple query protocol (`exec`: one message and its answer), not the extended one (`query`, which
 * PGlite runs as six exchanges with the WebAssembly backend, each with its fixed cost).
 *
 * Not for a transaction's statements: PGlite runs a transaction alone, so a PREPARE another
 * caller queued meanwhile would wait for the transaction that waits for it.
 */
export function preparedQueryable(
  session: Pick<PGlite, "query" | "exec">,
  /**
   * Plan with sequential scans off: each statement goes with a `SET LOCAL` in the same message,
   * which is one implicit transaction, so the setting ends with it (Database.settles). A
   * statement with parameters that runs unprepared is planned as any other.
   */
  { indexPlans = false }: { indexPlans?: boolean } = {},
): Queryable {
  const before = indexPlans ? "SET LOCAL enable_seqscan = off; " : "";
  return {
    async query<R extends object>(sql: string, params: readonly unknown[] = []) {
      const literals = params.map(literal);
      const name =
        PREPARABLE.test(sql) && literals.every((l) => l !== undefined)
          ? await prepared(session, sql)
          : null;
      if (name === null && (params.length > 0 || !indexPlans)) {
        return { rows: (await session.query<R>(sql, params as unknown[])).rows };
      }
      const args = literals.length > 0 ? `(${literals.join(", ")})` : "";
      const results = await session.exec(
        `${before}${name === null ? sql : `EXECUTE ${name}${args}`}`,
      );
      return { rows: (results.at(-1)?.rows ?? []) as R[] };
    },
  };
}

/** Most texts prepared per connection: texts with values written in must not fill it. */
const STATEMENTS_MAX = 500;

/** Per connection (prepared statements are the session's): each text's name, once prepared. */
const sessions = new WeakMap<object, Map<string, Promise<string>>>();
/** Names are never reused, even after a failed PREPARE. */
let prepares = 0;

/** The text's statement name (prepared now if need be), or null to run it unprepared. */
function prepared(session: Pick<PGlite, "exec">, sql: string): Promise<string> | null {
  let names = sessions.get(session);
  if (!names) {
    names = new Map();
    sessions.set(session, names);
  }
  let name = names.get(sql);
  if (name === undefined) {
    if (names.size >= STATEMENTS_MAX) return null;
    // The promise is kept at once, so that two calls at once prepare the text once; a failed
    // PREPARE is forgotten, so that the next call tries again (a table created since, say).
    prepares += 1;
    const taken = `blockgate_prepared_${prepares}`;
    const known = names;
    name = session.exec(`PREPARE ${taken} AS ${sql}`).then(
      () => taken,
      (err: unknown) => {
        known.delete(sql);
        throw err;
      },
    );
    names.set(sql, name);
  }
  return name;
}

/** What PREPARE accepts (PostgreSQL's PreparableStmt); anything else (SHOW, SET) runs as it is. */
const PREPARABLE = /^\s*(with|select|insert|update|delete|merge|values)\b/i;

function literal(value: unknown): string | undefined {
  if (value === null) return "NULL";
  const text = typeof value === "string" ? value : plain(value);
  if (text !== undefined) return `'${text.replaceAll("'", "''")}'`;
  // A list of numbers, as PGlite writes an array parameter ({1,2,3}), or of strings, each quoted
  // as an array element ({"a","b\"c"}); other lists run unprepared.
  if (Array.isArray(value)) {
    if (value.length > 0 && value.every((v) => typeof v === "string")) {
      return `'${`{${value.map(arrayElement).join(",")}}`.replaceAll("'", "''")}'`;
    }
    const items = value.map(plain);
    if (items.every((i) => i !== undefined && i !== "true" && i !== "false")) {
      return `'{${items.join(",")}}'`;
    }
  }
  return undefined;
}

/** A string as an element of an array literal: double-quoted, its quotes and backslashes escaped. */
function arrayElement(text: string): string {
  return `"${text.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

/** A number, bigint, boolean or date as the text protocol writes it (a date as PGlite does). */
function plain(value: unknown): string | undefined {
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : undefined;
  if (typeof value === "bigint" || typeof value === "boolean") return String(value);
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.toISOString();
  return undefined;
}
