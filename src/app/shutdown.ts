import type { Logger } from "pino";
import type { AuthFailures } from "../access/auth-failures.ts";
import type { Credits } from "../billing/ledger/credits.ts";
import type { TopupWatcher } from "../billing/topups/watcher.ts";
import type { TxStore } from "../cache/tx-store.ts";
import type { Database } from "../db/database.ts";
import type { ChainEvents } from "../events/chain-events.ts";
import type { Limits } from "../limits/limits.ts";
import { within } from "../util/cached-check.ts";
import type { Webhooks } from "../webhooks/webhooks.ts";
import type { RunningServer } from "./server.ts";
import type { App } from "./services.ts";

/** What a running gateway closes at SIGTERM, in the order shutdown() gives. */
export interface Closables {
  app: App;
  http: RunningServer;
  webhooks: Webhooks;
  events: ChainEvents;
  /** The top-up watcher, when top-ups are on. */
  topups: TopupWatcher | null;
  credits: Credits;
  authFailures: AuthFailures;
  pools: { close(force?: boolean): Promise<void> }[];
  txCache: TxStore;
  limits: Limits;
  db: Database;
  sweeper: NodeJS.Timeout;
  /** The CLI hand-off file, removed last. */
  admin: { remove(): void } | null;
}

/**
 * How long each step of the shutdown besides the drain may take: each closes something that ends
 * in moments. One that has not by then (a peer that never answers, a connection never given back)
 * is logged by name and left behind, so that the process still exits: what it held is what a
 * crash would leave, which the ledger's sweeps and the job queue's expiry are there for.
 */
export const SHUTDOWN_STEP_MS = 5_000;

/**
 * Runs one step of the shutdown for at most `ms`; past it, logs the step by name and goes on.
 * A step that fails still fails the shutdown, as before.
 */
export async function shutdownStep(
  log: Logger,
  step: string,
  work: () => Promise<unknown>,
  ms = SHUTDOWN_STEP_MS,
): Promise<void> {
  const late = Symbol("late");
  if ((await within(work(), ms, late)) === late) {
    log.warn({ step, ms }, "shutdown: a step did not end in time; going on without it");
  }
}

/** Graceful shutdown: drain within server.drainTimeoutMs, then close what the calls used. */
export async function shutdown(parts: Closables): Promise<void> {
  const { app, http, webhooks, events } = parts;
  const { config, log } = app;
  app.draining = true;
  clearInterval(parts.sweeper);
  // No more announcements: the lead passes to another process at once.
  await shutdownStep(log, "chain events", () => events.close());
  await shutdownStep(log, "top-up watcher", async () => parts.topups?.close());
  app.verifiedChains.close();
  // Logged once the listening socket is closed (from here a new connection is refused) and the
  // requests that had arrived are counted in flight.
  const { cut, ms } = await http.drain(config.server.drainTimeoutMs, () =>
    log.info({ inFlight: http.inFlight(), timeoutMs: config.server.drainTimeoutMs }, "draining"),
  );
  // Deliveries under way finish within what is left of the drain (their job is redone if not).
  const deliveriesMs = cut === 0 ? config.server.drainTimeoutMs : 1;
  await shutdownStep(
    log,
    "webhooks",
    () => webhooks.close(deliveriesMs),
    deliveriesMs + SHUTDOWN_STEP_MS,
  );
  if (cut === 0) await closeSettled(parts);
  else await closeCut(parts, cut);
  // Only now: while the store was open, the CLI had to hand its commands to this process.
  parts.admin?.remove();
  log.info({ ms, cut }, "drained");
}

/** Every call has settled: the leases go back, and the process leaves the table. */
async function closeSettled(parts: Closables): Promise<void> {
  const { log } = parts.app;
  await shutdownStep(log, "credit leases", () =>
    parts.credits.stop().catch((err: unknown) => log.warn({ err }, "returning credit leases")),
  );
  await shutdownStep(log, "failed authentications", () => parts.authFailures.stop());
  await shutdownStep(log, "upstream pools", () => Promise.all(parts.pools.map((p) => p.close())));
  await shutdownStep(log, "transaction cache", () => parts.txCache.close());
  await shutdownStep(log, "limits", () => parts.limits.close());
  await shutdownStep(log, "store", () => parts.db.close());
}

/**
 * The database closes first: a cut call still waiting on its upstream can then never settle, so
 * it is never charged; its hold stays open until the hold sweeper voids it.
 */
async function closeCut(parts: Closables, cut: number): Promise<void> {
  const { credits, log } = { credits: parts.credits, log: parts.app.log };
  log.warn({ cut }, "drain timed out: calls cut, their holds are left to the hold sweeper");
  credits.abandon();
  await shutdownStep(log, "failed authentications", () => parts.authFailures.stop());
  await shutdownStep(log, "store", () => parts.db.close());
  await shutdownStep(log, "upstream pools", () =>
    Promise.all(parts.pools.map((p) => p.close(true))),
  );
  await shutdownStep(log, "transaction cache", () => parts.txCache.close());
  await shutdownStep(log, "limits", () => parts.limits.close());
  // The cut calls fail as their upstreams close; each settle is refused before the closed store.
  if (credits.unsettled > 0) {
    log.warn({ settles: credits.unsettled }, "cut calls ended unsettled, not charged");
  }
}
