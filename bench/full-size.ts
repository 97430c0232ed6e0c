// The test files whose scenarios `npm test` runs small (test/support/size.ts: calls sent, cases
// generated, repetitions), run at their full size: each file once at the suite's size and once
// with BLOCKGATE_FULL_SIZE=1, one file at a time, side by side. Prints each run's outcome, its tests,
// its wall time and the CPU it and its processes used (Linux: what the machine's other work moves
// least), and full ÷ suite of each; exits 1 when any run fails. Usage:
//   npx tsx bench/full-size.ts [file-filter]      # e.g. drain, or test/ledger/
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";

const filter = process.argv[2] ?? "";

/** Test files that take their sizes from test/support/size.ts. */
function sizedFiles(): string[] {
  return readdirSync("test", { recursive: true })
    .map((p) => join("test", String(p)))
    .filter((p) => p.endsWith(".test.ts") && p.includes(filter))
    .filter((p) => /from "\.\.\/support\/size\.ts"/.test(readFileSync(p, "utf8")))
    .sort();
}

interface Run {
  ok: boolean;
  tests: number;
  seconds: number;
  cpuSeconds: number;
}

/** CPU seconds of this process's children that have ended (and theirs), from /proc (Linux). */
function childrenCpuSeconds(): number {
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ");
  // After the command's closing parenthesis: cutime and cstime are the 14th and 15th fields.
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

function run(file: string, full: boolean): Run {
  const dir = mkdtempSync(join(tmpdir(), "bg-full-size-"));
  const report = join(dir, "report.json");
  const started = performance.now();
  const cpuBefore = childrenCpuSeconds();
  const ran = spawnSync(
    process.execPath,
    ["node_modules/vitest/vitest.mjs", "run", file, "--reporter=json", `--outputFile=${report}`],
    {
      env: { ...process.env, BLOCKGATE_FULL_SIZE: full ? "1" : "" },
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  const seconds = (performance.now() - started) / 1000;
  const cpuSeconds = childrenCpuSeconds() - cpuBefore;
  let tests = 0;
  try {
    tests = (JSON.parse(readFileSync(report, "utf8")) as { numPassedTests: number }).numPassedTests;
  } catch {
    process.stdout.write(`${ran.stdout}\n${ran.stderr}\n`);
  }
  rmSync(dir, { recursive: true, force: true });
  return { ok: ran.status === 0, tests, seconds, cpuSeconds };
}

const files = sizedFiles();
process.stdout.write(
  `${files.length} files, load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}\n`,
);
let failed = false;
for (const file of files) {
  const small = run(file, false);
  const full = run(file, true);
  failed ||= !small.ok || !full.ok;
  const outcome = (r: Run) =>
    `${r.ok ? "ok" : "FAILED"} ${r.tests} tests, ${r.seconds.toFixed(1)} s, ${r.cpuSeconds.toFixed(1)} s CPU`;
  const ratio = (a: number, b: number) => (a / b).toFixed(2);
  process.stdout.write(
    `${file}\n  suite size: ${outcome(small)}\n  full size:  ${outcome(full)}` +
      `  (×${ratio(full.seconds, small.seconds)} wall, ×${ratio(full.cpuSeconds, small.cpuSeconds)} CPU)\n`,
  );
}
process.stdout.write(`load average ${loadavg()[0]!.toFixed(2)}\n`);
process.exit(failed ? 1 : 0);
