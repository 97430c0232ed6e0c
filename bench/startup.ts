// Start-up time on embedded defaults (devnet upstreams, PGlite on disk): from spawning the process
// to the line with its URL, for the first start (creates and migrates the database) and for later
// starts on the same folder. Side by side in the same run: the compiled gateway (`node dist/main.js`,
// what `npm start` runs) and the same sources run through tsx (how `npm start` ran before the
// build existed). Loopback only; bounded by count. Usage: npx tsx bench/startup.ts [restarts]
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { buildDist } from "../scripts/build.mjs";

const RESTARTS = Number(process.argv[2] ?? 5);

/** Milliseconds from spawn to the URL line; then SIGTERM, and waits for the process to end. */
function timeStart(args: string[], config: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, {
      env: { ...process.env, BLOCKGATE_CONFIG: config, DATABASE_URL: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let ms = 0;
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (ms === 0 && out.includes("blockgate listening on")) {
        ms = performance.now() - started;
        child.kill("SIGTERM");
      }
    });
    child.stderr.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.once("exit", (code) =>
      ms > 0 ? resolve(ms) : reject(new Error(`exit ${code}:\n${out}`)),
    );
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

await buildDist();
const variants = {
  "node dist/main.js": ["dist/main.js"],
  "tsx src/main.ts": ["--import", "tsx", "src/main.ts"],
};
console.log(`machine: ${cpus().length} cores, load average ${loadavg()[0]!.toFixed(2)}`);
for (const [name, args] of Object.entries(variants)) {
  const dir = mkdtempSync(join(tmpdir(), "blockgate-startup-"));
  const config = join(dir, "blockgate.yaml");
  writeFileSync(config, `server:\n  port: 0\ndatabase:\n  pgliteDir: ${join(dir, "db")}\n`);
  try {
    const first = await timeStart(args, config);
    const later: number[] = [];
    for (let i = 0; i < RESTARTS; i++) later.push(await timeStart(args, config));
    console.log(
      `${name.padEnd(18)} first start ${Math.round(first)} ms; later starts median ${Math.round(median(later))} ms (min ${Math.round(Math.min(...later))}, max ${Math.round(Math.max(...later))}, n=${RESTARTS})`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
