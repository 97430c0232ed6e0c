import { readFileSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { preparedQueryable } from "../../src/db/pglite-prepared.ts";

describe("PGlite statements prepared once (EXECUTE with literals)", () => {
  let pg: PGlite;
  beforeAll(async () => {
    // The run's migrated snapshot rather than initdb, on the small buffer pool our stores use
    // (src/db/pglite.ts): PGlite's own parsers and defaults otherwise, which this is about.
    pg = await PGlite.create("memory://", {
      loadDataDir: new Blob([readFileSync(inject("pgliteSnapshot"))]),
      startParams: [...PGlite.defaultStartParams, "-c", "shared_buffers=16MB"],
    });
    await pg.exec("CREATE TABLE t (id int8 PRIMARY KEY, doc jsonb, note text)");
  });
  afterAll(() => pg.close());

  it("gives each value back exactly, quotes and all, and prepares the text once", async () => {
    const q = preparedQueryable(pg);
    const insert = "INSERT INTO t VALUES ($1, $2::jsonb, $3) RETURNING id, doc, note";
    const tricky = `it's '' a "quote" \\ and $1 -- not a comment; DROP TABLE t`;
    const doc = JSON.stringify({ s: "o'brien", n: -12.5, u: "\u00e9" });
    const first = await q.query(insert, [1, doc, tricky]);
    expect(first.rows).toEqual([{ id: 1, doc: JSON.parse(doc), note: tricky }]);
    const second = await q.query(insert, [2, "[]", null]);
    expect(second.rows).toEqual([{ id: 2, doc: [], note: null }]);
    const prepared = await pg.query<{ name: string; parameter_types: string[] }>(
      "SELECT name, parameter_types::text[] FROM pg_prepared_statements",
    );
    expect(prepared.rows).toEqual([
      {
        name: expect.stringMatching(/^blockgate_prepared_\d+$/),
        parameter_types: ["bigint", "jsonb", "text"],
      },
    ]);
  });

  it("runs what PREPARE does not take, and values it cannot write, as they are", async () => {
    const q = preparedQueryable(pg);
    expect((await q.query("SHOW standard_conforming_strings")).rows).toEqual([
      { standard_conforming_strings: "on" },
    ]);
    const { rows } = await q.query<{ v: boolean[] }>("SELECT $1::boolean[] AS v", [[true, false]]);
    expect(rows).toEqual([{ v: [true, false] }]);
    const listed = await pg.query(
      "SELECT name FROM pg_prepared_statements WHERE name LIKE 'blockgate%'",
    );
    expect(listed.rows).toHaveLength(1);
  });

  it("types each value as the statement does, as a bound parameter is", async () => {
    const q = preparedQueryable(pg);
    const { rows } = await q.query(
      "SELECT $1::jsonb AS doc, $2::int8 + 1 AS next, $3::boolean AS yes, $4::text AS word, $5::int8[] AS ids, $6::timestamptz AS at",
      [5, 2n ** 62n, true, 7.5, [3, 1, 2], new Date("2026-11-29T04:00:00.123Z")],
    );
    expect(rows).toEqual([
      {
        doc: 5,
        next: 2n ** 62n + 1n,
        yes: true,
        word: "7.5",
        ids: [3, 1, 2],
        at: new Date("2026-11-29T04:00:00.123Z"),
      },
    ]);
  });

  it("writes lists of strings as array literals, every element exactly", async () => {
    const q = preparedQueryable(pg);
    const words = ["a", "b'c", 'd"e', "f\\g", "", "NULL", "{x,y}", " spaced ", "é", "\\\"'"];
    const { rows } = await q.query<{ v: string[]; n: number }>(
      "SELECT $1::text[] AS v, cardinality($1::text[]) AS n",
      [words],
    );
    expect(rows).toEqual([{ v: words, n: words.length }]);
    const uuids = ["5c0b3a8e-0000-4000-8000-000000000001", "5c0b3a8e-0000-4000-8000-000000000002"];
    const listed = await q.query<{ id: string }>("SELECT unnest($1::uuid[]) AS id", [uuids]);
    expect(listed.rows.map((r) => r.id)).toEqual(uuids);
    const prepared = await pg.query<{ statement: string }>(
      "SELECT statement FROM pg_prepared_statements WHERE statement LIKE '%text[] AS v%' OR statement LIKE '%uuid[]%'",
    );
    expect(prepared.rows).toHaveLength(2);
  });

  it("fails a statement that fails without leaving it half prepared", async () => {
    const q = preparedQueryable(pg);
    await expect(q.query("SELECT * FROM missing_table WHERE id = $1", [1])).rejects.toThrow(
      /missing_table/,
    );
    await pg.exec("CREATE TABLE missing_table (id int)");
    expect(
      (await q.query("SELECT count(*)::int AS n FROM missing_table WHERE id = $1", [1])).rows,
    ).toEqual([{ n: 0 }]);
  });
});
