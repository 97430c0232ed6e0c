import type { Worker } from "node:cluster";
import { AggregatorRegistry, Counter, Gauge, Registry } from "prom-client";
import type { PrimaryMessage } from "./messages.ts";

/**
 * /metrics for a cluster: a worker asked for it asks the primary, which gathers every worker's
 * registry (prom-client's AggregatorRegistry, over IPC) — each series labelled with its worker, so
 * nothing is summed away — and adds its own: workers serving, workers replaced.
 */
export class ClusterMetrics {
  private readonly aggregator = new AggregatorRegistry();
  private readonly own = new Registry();
  readonly serving = new Gauge({
    name: "blockgate_cluster_workers",
    help: "Worker processes serving (blockgate start --workers N).",
    registers: [this.own],
  });
  readonly replaced = new Counter({
    name: "blockgate_cluster_worker_replacements_total",
    help: "Workers started in place of one that exited, by worker slot.",
    labelNames: ["worker"] as const,
    registers: [this.own],
  });

  /** Answers `worker`'s request `id` with every worker's metrics and the primary's. */
  answer(worker: Worker, id: number): void {
    Promise.all([this.own.metrics(), this.aggregator.clusterMetrics()]).then(
      ([own, workers]) =>
        reply(worker, { type: "blockgate:metrics", id, text: `${own}\n${workers}` }),
      (err: unknown) =>
        reply(worker, { type: "blockgate:metrics", id, error: (err as Error).message }),
    );
  }
}

function reply(worker: Worker, message: PrimaryMessage): void {
  if (worker.isConnected()) worker.send(message);
}
