import type { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createPglite } from "../../src/db/pglite.ts";

describe("PGlite's settings", () => {
  let pg: PGlite;
  beforeAll(async () => {
    pg = await createPglite("memory://", { fromSnapshot: inject("pgliteSnapshot") });
  });
  afterAll(() => pg.close());

  it("makes a new WAL segment without writing its zeroes, on a small buffer pool", async () => {
    const shown = async (name: string) =>
      Object.values((await pg.query<Record<string, string>>(`SHOW ${name}`)).rows[0] ?? {})[0];
    expect(await shown("wal_init_zero")).toBe("off");
    expect(await shown("shared_buffers")).toBe("16MB");
    // A table's rows are written to the WAL, in the segment switched to, and read back.
    const segment = async () =>
      (await pg.query<{ f: string }>("SELECT pg_walfile_name(pg_current_wal_lsn()) AS f")).rows[0]
        ?.f;
    await pg.exec("CREATE TABLE t (n int8)");
    const before = await segment();
    await pg.query("SELECT pg_switch_wal()");
    await pg.query("INSERT INTO t SELECT generate_series(1, 1000)");
    expect(await segment()).not.toBe(before);
    expect((await pg.query<{ n: number }>("SELECT count(*)::int AS n FROM t")).rows).toEqual([
      { n: 1000 },
    ]);
  });
});
