// Another process's CPU time, for benchmarks that count a server's share (redis-server's, say).
import { readdirSync, readFileSync } from "node:fs";

/** CPU time (user and system) of process `pid` so far, in µs (clock ticks of 10 ms); 0 without one. */
export function processCpuUs(pid: string | undefined): number {
  if (!pid) return 0;
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/**
 * This process's CPU time so far split by thread, in µs: its main thread (JavaScript, and PGlite's
 * WebAssembly), and every other (V8's compilers and collector helpers, libuv's pool).
 */
export function threadsCpuUs(): { main: number; others: number } {
  let main = 0;
  let others = 0;
  for (const tid of readdirSync("/proc/self/task")) {
    const us = processCpuUs(`self/task/${tid}`);
    if (Number(tid) === process.pid) main += us;
    else others += us;
  }
  return { main, others };
}
