import type { BlockProducer } from "./block-producer.ts";

/**
 * Produces one block on each producer's chain every `intervalMs` until stopped: `npm start`'s
 * live chain. The interval is unref'd, so a devnet nobody closed does not keep a process (a test
 * run) alive; close() stops it all the same.
 */
export function startBlockTimer(
  producers: readonly BlockProducer[],
  intervalMs: number,
): { stop(): void } {
  if (intervalMs <= 0 || producers.length === 0) return { stop() {} };
  const timer = setInterval(() => {
    for (const producer of producers) producer.mine(1);
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
