// What a new WAL segment costs PGlite: the first statement after `pg_switch_wal()` (which makes
// the next segment) with PostgreSQL's default `wal_init_zero = on` — the segment's 16 MB written
// as zeroes — side by side with `off`, as src/db/pglite.ts starts PGlite (the segment made by
// writing its last byte). A memory store (the benches' and tests') and a folder (what `npm start`
// opens), the two settings alternating, each a fresh store. Bounded by count. Usage:
//   npx tsx bench/wal-segments.ts [switches per store=12] [rounds=2]
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";

const SWITCHES = Number(process.argv[2] ?? 12);
const ROUNDS = Number(process.argv[3] ?? 2);

/** The first statement's times after each of `SWITCHES` segment switches, sorted (ms). */
async function afterSwitches(where: "memory" | "folder", zero: "on" | "off"): Promise<number[]> {
  const dir = where === "memory" ? "memory://" : mkdtempSync(join(tmpdir(), "wal-segments-"));
  const pg = await PGlite.create(dir, {
    startParams: [
      ...PGlite.defaultStartParams,
      "-c",
      "shared_buffers=16MB",
      "-c",
      `wal_init_zero=${zero}`,
    ],
  });
  try {
    await pg.exec("CREATE TABLE t (n int8)");
    const times: number[] = [];
    for (let i = 0; i < SWITCHES; i++) {
      await pg.query("SELECT pg_switch_wal()");
      const t = performance.now();
      await pg.query("INSERT INTO t VALUES (1)");
      times.push(performance.now() - t);
    }
    return times.sort((a, b) => a - b);
  } finally {
    await pg.close();
    if (where === "folder") rmSync(dir, { recursive: true, force: true });
  }
}

const median = (sorted: number[]) => sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
console.log(
  `bench/wal-segments: ${SWITCHES} switches per store, ${ROUNDS} rounds; load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`,
);
for (const where of ["memory", "folder"] as const) {
  for (let round = 1; round <= ROUNDS; round++) {
    const on = await afterSwitches(where, "on");
    const off = await afterSwitches(where, "off");
    const f = (s: number[]) =>
      `median ${median(s).toFixed(2)} ms, max ${s[s.length - 1]!.toFixed(2)} ms`;
    console.log(
      `${where.padEnd(6)} round ${round}: zero-filled ${f(on)}; last byte only ${f(off)}; ratio ${(median(off) / median(on)).toFixed(3)}x`,
    );
  }
}
