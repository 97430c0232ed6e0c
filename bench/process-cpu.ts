// Another process's CPU time, for benchmarks that count a server's share (redis-server's, say).
import { readFileSync } from "node:fs";

/** CPU time (user and system) of process `pid` so far, in µs (clock ticks of 10 ms); 0 without one. */
export function processCpuUs(pid: string | undefined): number {
  if (!pid) return 0;
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}
