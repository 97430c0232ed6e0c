import type { PGlite } from "@electric-sql/pglite";
import type { Queryable } from "./database.ts";

/**
 * Statements run through SQL-level PREPARE and EXECUTE on PGlite's one connection. PGlite's
 * `query` parses and plans its text on every call (an unnamed statement), which for the settle
 * statement costs more than executing it; a prepared statement is parsed once per connection
 * and its plan kept by PostgreSQL's plan cache, as the pg driver's named statements are.
 * EXECUTE takes no bind parameters, so values go in as literals: strings quoted by doubling
 * their single quotes (standard_conforming_strings is on, so nothing else is special), numbers
 * as written, null as NULL. A value of any other kind, or a statement PREPARE does not take,
 * runs unprepared.
 */
export function preparedQueryable(db: Pick<PGlite, "query" | "exec">): Queryable {
  return {
    async query<R extends object>(sql: string, params: readonly unknown[] = []) {
      const literals = params.map(literal);
      if (!PREPARABLE.test(sql) || literals.some((l) => l === undefined)) {
        return { rows: (await db.query<R>(sql, params as unknown[])).rows };
      }
      const name = await prepared(db, sql);
      const args = literals.length > 0 ? `(${literals.join(", ")})` : "";
      return { rows: (await db.query<R>(`EXECUTE ${name}${args}`)).rows };
    },
  };
}

/** Per connection (prepared statements are the session's): each text's name, once prepared. */
const sessions = new WeakMap<object, Map<string, Promise<string>>>();
/** Names are never reused, even after a failed PREPARE. */
let prepares = 0;

function prepared(db: Pick<PGlite, "exec">, sql: string): Promise<string> {
  let names = sessions.get(db);
  if (!names) {
    names = new Map();
    sessions.set(db, names);
  }
  let name = names.get(sql);
  if (name === undefined) {
    // The promise is kept at once, so that two calls at once prepare the text once; a failed
    // PREPARE is forgotten, so that the next call tries again (a table created since, say).
    prepares += 1;
    const taken = `blockgate_prepared_${prepares}`;
    const known = names;
    name = db.exec(`PREPARE ${taken} AS ${sql}`).then(
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
  if (typeof value === "string") return `'${value.replaceAll("'", "''")}'`;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return undefined;
}
