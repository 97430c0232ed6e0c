import cluster, { type Worker } from "node:cluster";
import type { Logger } from "pino";
import { ANNOUNCE_ENV, isWorkerMessage, SLOT_ENV, type WorkerMessage } from "./messages.ts";
import { ClusterMetrics } from "./primary-metrics.ts";

/** A replacement waits this long after its slot's first crash, doubling per crash up to the most. */
const RESTART_DELAY_MS = 100;
const RESTART_DELAY_MAX_MS = 10_000;
/** A worker that served this long before it exited starts its slot's count of crashes afresh. */
const STABLE_MS = 30_000;
/** Past server.drainTimeoutMs, what a worker may take to close its store and pools. */
const CLOSE_GRACE_MS = 5_000;

export interface PrimaryOptions {
  count: number;
  drainTimeoutMs: number;
  log: Logger;
  /** Where the line saying the workers serve is printed (standard output). */
  print(line: string): void;
}

interface Slot {
  worker: Worker | null;
  ready: boolean;
  /** Exits in a row of workers that did not serve STABLE_MS. */
  crashes: number;
  startedAt: number;
  restart: NodeJS.Timeout | null;
}

/**
 * `blockgate start --workers N`'s primary: forks N workers (each runs the gateway on the shared
 * ports; node:cluster hands out the connections), replaces one that exits, with a growing delay
 * for one that keeps failing, and on SIGTERM or SIGINT drains them all and exits 0. It serves no
 * request itself.
 */
export function runPrimary(opts: PrimaryOptions): void {
  const supervisor = new Supervisor(opts);
  process.once("SIGTERM", () => supervisor.stop("SIGTERM"));
  process.once("SIGINT", () => supervisor.stop("SIGINT"));
  supervisor.start();
}

class Supervisor {
  private readonly slots: Slot[];
  private readonly metrics = new ClusterMetrics();
  private stopping = false;
  /** Until every worker first served, a worker's exit is a failed start: the primary gives up. */
  private served = false;
  private exitCode = 0;

  constructor(private readonly opts: PrimaryOptions) {
    this.slots = Array.from({ length: opts.count }, () => ({
      worker: null,
      ready: false,
      crashes: 0,
      startedAt: 0,
      restart: null,
    }));
  }

  start(): void {
    this.opts.log.info({ workers: this.opts.count, pid: process.pid }, "primary forking workers");
    // The first worker of slot 0 prints the start banner (and makes the demo account), once.
    for (let slot = 0; slot < this.slots.length; slot += 1) this.fork(slot, slot === 0);
  }

  private fork(slot: number, announce: boolean): void {
    const state = this.slots[slot]!;
    const worker = cluster.fork({ [SLOT_ENV]: String(slot), [ANNOUNCE_ENV]: announce ? "1" : "" });
    Object.assign(state, { worker, ready: false, startedAt: Date.now(), restart: null });
    worker.on("message", (message: unknown) => {
      if (isWorkerMessage(message)) this.heard(slot, worker, message);
    });
    worker.on("exit", (code, signal) => this.exited(slot, worker, code, signal));
  }

  private heard(slot: number, worker: Worker, message: WorkerMessage): void {
    if (message.type === "blockgate:metrics-ask") {
      this.metrics.answer(worker, message.id);
      return;
    }
    this.slots[slot]!.ready = true;
    this.metrics.serving.inc();
    this.opts.log.info({ worker: slot, pid: worker.process.pid }, "worker serving");
    if (this.served || !this.slots.every((s) => s.ready)) return;
    this.served = true;
    const pids = this.slots.map((s) => s.worker?.process.pid).join(", ");
    this.opts.print(
      `blockgate: ${this.opts.count} worker${this.opts.count === 1 ? "" : "s"} listening on ${message.url} (primary pid ${process.pid}; worker pids ${pids})\n`,
    );
  }

  private exited(slot: number, worker: Worker, code: number | null, signal: string | null): void {
    const state = this.slots[slot]!;
    if (state.worker !== worker) return;
    if (state.ready) this.metrics.serving.dec();
    state.worker = null;
    state.ready = false;
    const fields = { worker: slot, pid: worker.process.pid, code, signal };
    if (this.stopping) {
      // A worker that did not drain cleanly makes the primary's exit a failure too.
      if (code !== 0) this.exitCode = 1;
      this.opts.log.info(fields, "worker stopped");
      this.finishWhenAllStopped();
    } else if (!this.served) {
      // A configuration or a store that does not work: every replacement would fail alike.
      this.opts.log.error(fields, "worker exited before every worker served: stopping");
      this.exitCode = 1;
      this.stop("SIGTERM");
    } else {
      this.replace(slot, fields);
    }
  }

  /** A lost worker's slot is filled again, later each time it fails again soon. */
  private replace(slot: number, fields: object): void {
    const state = this.slots[slot]!;
    if (Date.now() - state.startedAt >= STABLE_MS) state.crashes = 0;
    const delayMs = Math.min(RESTART_DELAY_MS * 2 ** state.crashes, RESTART_DELAY_MAX_MS);
    state.crashes += 1;
    this.opts.log.warn({ ...fields, delayMs }, "worker exited: replacing it");
    state.restart = setTimeout(() => {
      this.metrics.replaced.inc({ worker: String(slot) });
      this.fork(slot, false);
    }, delayMs);
  }

  /** Every worker drains (SIGTERM: each runs its gateway's shutdown); then the primary exits. */
  stop(signal: NodeJS.Signals): void {
    if (this.stopping) return;
    this.stopping = true;
    this.opts.log.info({ signal }, "primary stopping: draining every worker");
    for (const state of this.slots) {
      if (state.restart) clearTimeout(state.restart);
      state.restart = null;
      // SIGTERM whichever signal came: a terminal's Ctrl-C also sent the workers SIGINT, and a
      // second SIGINT would end a worker without its drain.
      state.worker?.process.kill("SIGTERM");
    }
    setTimeout(() => this.forceStop(), this.opts.drainTimeoutMs + CLOSE_GRACE_MS).unref();
    this.finishWhenAllStopped();
  }

  private forceStop(): void {
    const left = this.slots.filter((s) => s.worker);
    this.opts.log.error({ workers: left.length }, "workers still running past the drain: killed");
    for (const state of left) state.worker?.process.kill("SIGKILL");
    this.exitCode = 1;
  }

  private finishWhenAllStopped(): void {
    if (this.slots.some((s) => s.worker)) return;
    this.opts.log.info({ code: this.exitCode }, "primary stopped");
    process.exit(this.exitCode);
  }
}
