/**
 * What the primary and its workers tell each other over the cluster's IPC channel (beside
 * prom-client's own messages, which gather the workers' metrics for the primary).
 */
export type WorkerMessage =
  /** The worker's gateway listens (its ports are the cluster's): it serves from now. */
  | { type: "blockgate:ready"; url: string }
  /** /metrics was asked of this worker: the primary gathers every worker's. */
  | { type: "blockgate:metrics-ask"; id: number };

export type PrimaryMessage =
  | { type: "blockgate:metrics"; id: number; text: string }
  | { type: "blockgate:metrics"; id: number; error: string };

function typed(message: unknown): { type?: unknown } | null {
  return typeof message === "object" && message !== null ? (message as { type?: unknown }) : null;
}

export function isWorkerMessage(message: unknown): message is WorkerMessage {
  const type = typed(message)?.type;
  return type === "blockgate:ready" || type === "blockgate:metrics-ask";
}

export function isPrimaryMessage(message: unknown): message is PrimaryMessage {
  return typed(message)?.type === "blockgate:metrics";
}

/** The environment a worker is forked with: its slot, and whether it prints the start banner. */
export const SLOT_ENV = "BLOCKGATE_WORKER_SLOT";
export const ANNOUNCE_ENV = "BLOCKGATE_WORKER_ANNOUNCE";
