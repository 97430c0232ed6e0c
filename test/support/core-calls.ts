import type { DevnetCoreServer } from "../../src/devnet/bitcoin-core/http.ts";

/**
 * How many calls of `method` devnet's Core has read since this was made, held ones included, and
 * in how many requests. `stats` counts every call, and a test gateway asks the node on its own now
 * and then (its verified-chain follower: the tip, its headers): a test that counts its own calls
 * at the node counts only these.
 */
export function callsRead(
  core: DevnetCoreServer,
  method: string,
): { count(): number; requests(): number; stop(): void } {
  let count = 0;
  let requests = 0;
  const stop = core.watch((calls) => {
    const mine = calls.filter((c) => c.method === method).length;
    count += mine;
    if (mine > 0) requests += 1;
  });
  return { count: () => count, requests: () => requests, stop };
}
