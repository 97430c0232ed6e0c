// What PostgreSQL's processes on this machine spent, for benchmarks that charge a ledger on it.
import { readdirSync, readFileSync } from "node:fs";

/**
 * CPU time of every process named postgres on this machine, in µs by process (pid and start time,
 * from /proc; clock ticks of 10 ms): PostgreSQL's share of what a gateway run costs, when it runs
 * here. Compared per process (postgresCpuSince), so a backend that exits during a run does not
 * take its earlier CPU time out of the sum (it read as negative); its time in the run is lost.
 */
export function postgresCpuUs(): Map<string, number> {
  const out = new Map<string, number>();
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      if (!stat.slice(stat.indexOf("(") + 1, close).startsWith("postgres")) continue;
      const fields = stat.slice(close + 2).split(" ");
      // utime, stime; starttime tells a reused pid apart.
      out.set(`${pid}/${fields[19]}`, (Number(fields[11]) + Number(fields[12])) * 10_000);
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

export function postgresCpuSince(before: Map<string, number>): number {
  let spent = 0;
  for (const [process, us] of postgresCpuUs()) spent += us - (before.get(process) ?? 0);
  return spent;
}
