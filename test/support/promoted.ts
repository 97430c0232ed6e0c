// What a piece of synchronous work leaves in V8's old generation once the young generation's
// collector has run: the bytes it promoted. Objects the work made and let go of should die young;
// what is promoted instead was kept alive by something old — the retention that makes every
// scavenge copy a request's worth of data and pause for milliseconds (src/util/in-flight-map.ts).
import { getHeapSpaceStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

setFlagsFromString("--expose-gc");
// The collector's own entry point, from a context made after the flag (the usual way to reach it
// without starting Node with --expose-gc).
const gc = runInNewContext("gc") as (options?: { type: "minor" | "major" }) => void;

const oldSpaceUsed = (): number =>
  getHeapSpaceStatistics().find((s) => s.space_name === "old_space")?.space_used_size ?? 0;

/** Bytes promoted to the old generation by `work` and two minor collections after it. */
export function promotedBy(work: () => void): number {
  // A major collection first: what is long-lived already is old, and nothing dead is.
  gc({ type: "major" });
  const before = oldSpaceUsed();
  work();
  // Two: a survivor of the first is only copied; the second promotes what is still held.
  gc({ type: "minor" });
  gc({ type: "minor" });
  return oldSpaceUsed() - before;
}

/** Ages what exists now into the old generation (a long-lived structure, as in a server). */
export function ageEverything(): void {
  gc({ type: "major" });
  gc({ type: "major" });
}
