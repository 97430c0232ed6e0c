import cluster from "node:cluster";
import { AggregatorRegistry, type Registry } from "prom-client";
import type { WorkerRole } from "../app/app.ts";
import { ANNOUNCE_ENV, isPrimaryMessage, SLOT_ENV, type WorkerMessage } from "./messages.ts";

/** Longest a worker waits for the primary to gather every worker's metrics. */
const METRICS_WAIT_MS = 10_000;

/** In a worker forked by the primary (primary.ts): its role; elsewhere null. */
export function workerRole(env: NodeJS.ProcessEnv): WorkerRole | null {
  if (!cluster.isWorker) return null;
  const slot = Number(env[SLOT_ENV]);
  if (!Number.isInteger(slot) || slot < 0) return null;
  return { slot, shareMetrics: (registry) => shareMetrics(registry, slot) };
}

/** Tells the primary this worker serves. */
export function announceReady(url: string): void {
  send({ type: "blockgate:ready", url });
}

function send(message: WorkerMessage): void {
  process.send?.(message);
}

/**
 * Every series of this worker's registry is labelled with its slot, and prom-client answers the
 * primary's requests for it; /metrics asks the primary, which gathers them all (primary-metrics.ts).
 */
function shareMetrics(registry: Registry, slot: number): () => Promise<string> {
  registry.setDefaultLabels({ worker: String(slot) });
  AggregatorRegistry.setRegistries([registry]);
  // Constructed in a worker, it installs the listener that answers the primary; nothing else.
  new AggregatorRegistry();
  let asked = 0;
  return () => {
    asked += 1;
    const id = asked;
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => done(new Error("the primary did not answer")),
        METRICS_WAIT_MS,
      );
      const done = (err: Error | null, text = "") => {
        clearTimeout(timer);
        process.off("message", onMessage);
        if (err) reject(err);
        else resolve(text);
      };
      const onMessage = (message: unknown) => {
        if (!isPrimaryMessage(message) || message.id !== id) return;
        if ("error" in message) done(new Error(message.error));
        else done(null, message.text);
      };
      process.on("message", onMessage);
      send({ type: "blockgate:metrics-ask", id });
    });
  };
}

/** Whether this worker prints the start banner: the first of slot 0 does, its replacements not. */
export function announces(env: NodeJS.ProcessEnv): boolean {
  return env[ANNOUNCE_ENV] === "1";
}
