import type { Logger } from "pino";
import type { AuthFailures } from "../../access/auth-failures.ts";
import type { TokenOwner } from "../../access/tokens.ts";
import type { Config, NetworkName } from "../../config/schema.ts";
import type { Database } from "../../db/database.ts";
import type { CapTicket } from "../../limits/cap-ticket.ts";
import type { Limits } from "../../limits/limits.ts";
import type { Metrics } from "../../log/metrics.ts";
import type { Credits } from "../ledger/credits.ts";

/**
 * What the metering pipeline uses of a running gateway (its reserve, limits and settle phases).
 * Each route family declares the services it uses on top of these; the composition root
 * (src/app/app.ts) builds one object that has them all, and only it knows that object whole.
 */
export interface MeterServices {
  config: Config;
  db: Database;
  /** Failed authentications and refusals, written aggregated per source and minute. */
  authFailures: AuthFailures;
  /** Plans: request rates, calls in flight and credit caps (src/limits/). */
  limits: Limits;
  /** Credit leases, per-call holds and the settle queue: every reserve and settle goes here. */
  credits: Credits;
  log: Logger;
  metrics: Metrics;
}

export type BackendKind = "gateway" | "node" | "electrum" | "graph" | "esplora";

/**
 * Per-request state; travels as an argument, never through module globals. The one request
 * context: every route gets it, the metering pipeline takes it, and the unified API's context
 * extends it (src/routes/gateway/context.ts).
 */
export interface CallContext<S extends MeterServices = MeterServices> {
  /** The services of the route that serves the call (narrowed by the route). */
  services: S;
  requestId: string;
  owner: TokenOwner;
  backend: BackendKind;
  /** The literal path segment, as written in the audit log. */
  backendSegment: string;
  network: NetworkName;
  startedAt: number;
  /**
   * The request's Idempotency-Key (src/billing/metering/idempotency.ts). `rerun`: its first attempt was
   * charged but its answer was lost, so this one runs free of charge.
   */
  idempotency?: { key: string; rerun: boolean };
  /**
   * The Electrum socket session (WebSocket or TLS) a call came on: what its calls subscribe to is
   * pushed to it. Absent for an HTTP request, which has nobody to notify.
   */
  electrum?: ElectrumSubscriptions;
  /** X-Blockgate-Require-Verified: answers not verified in full are refused, not charged. */
  requireVerified?: boolean;
  /**
   * Commits the call's charge (`settle`) unless the gateway's drain has cut the call
   * (src/http/in-flight.ts): then it rejects and nothing is charged. Absent: charged as usual.
   */
  charge?<T>(settle: () => Promise<T>): Promise<T>;
  /** What the call's admission took of its plan's credit caps, for the cap phase to claim. */
  caps?: CapTicket | null;
}

/** An Electrum socket session's subscriptions, as its calls change them (src/routes/electrum/push.ts). */
export interface ElectrumSubscriptions {
  /** blockchain.headers.subscribe was answered: the tip is pushed as it moves. */
  subscribeHeaders(): void;
  /** Whether the session may hold this script hash: one it holds, or one more within its limit. */
  canSubscribe(scripthash: string): boolean;
  /**
   * Takes a place for the script hash before its status is read, so the calls of one batch cannot
   * pass the limit together: `held` (already subscribed), `new` (a place taken; give it back with
   * unsubscribeScripthash if the status cannot be read) or `full`.
   */
  claimScripthash(scripthash: string): "held" | "new" | "full";
  /** blockchain.scripthash.subscribe was answered this status: pushed again when it changes. */
  subscribeScripthash(scripthash: string, status: string | null): void;
  /** Whether the session held the script hash (ElectrumX's answer to unsubscribe). */
  unsubscribeScripthash(scripthash: string): boolean;
}
