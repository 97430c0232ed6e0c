import type { DevnetCoreServer } from "../../src/devnet/bitcoin-core/http.ts";

/**
 * How many calls of `method` devnet's Core has read since this was made, held ones included.
 * `stats.callsRead` counts every call, and a test gateway asks the node on its own now and then
 * (the tip, its headers): a test waiting for its own calls to reach the node counts only these.
 */
export function callsRead(
  core: DevnetCoreServer,
  method: string,
): { count(): number; stop(): void } {
  let count = 0;
  const stop = core.watch((calls) => {
    count += calls.filter((c) => c.method === method).length;
  });
  return { count: () => count, stop };
}
