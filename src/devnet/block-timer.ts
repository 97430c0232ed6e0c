import type { BlockProducer } from "./block-producer.ts";

/**
 * Produces one block on each producer's chain every `intervalMs` until stopped: `npm start`'s
 * live chain. The interval is unref'd, so a devnet nobody closed does not keep a process (a test
 * run) alive; close() stops it all the same.
 */
export function startBlockTimer(
  producers: readonly BlockProducer[],
  intervalMs: number,
  onError: (err: Error) => void = (err) =>
    process.stderr.write(`devnet: block timer: ${err.message}\n`),
): { stop(): void } {
  if (intervalMs <= 0 || producers.length === 0) return { stop() {} };
  const timer = setInterval(() => {
    for (const producer of producers) {
      // A tick that fails must not end the process from a timer callback: say so, try next tick.
      try {
        producer.mine(1);
      } catch (err) {
        onError(err as Error);
      }
    }
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
