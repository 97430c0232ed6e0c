import type PgBoss from "pg-boss";
import { Agent, request } from "undici";
import { liveOwner, type TokenOwner } from "../access/tokens.ts";
import { type CallOutcome, type Metered, meter } from "../billing/metering/pipeline.ts";
import { eventPrice } from "../billing/pricing/prices.ts";
import type { Config } from "../config/schema.ts";
import type { Queryable } from "../db/database.ts";
import { gatewayError } from "../protocol/errors/codes.ts";
import { chargeKey, closeMark, openMark } from "./charge-mark.ts";
import { bossDb, DELIVERIES } from "./queue.ts";
import type { WebhookServices } from "./services.ts";
import { signedHeaders } from "./signing.ts";
import { endEndpoint, type Pending, pendingMessage, recordAttempt } from "./store.ts";
import type { TargetPolicy } from "./targets.ts";

/** What one POST came to. */
type Sent = { ok: true; status: number } | { ok: false; status: number | null; error: string };

/**
 * Sends one attempt at each message its job names: through the metering pipeline, so that a
 * delivery the endpoint accepted (2xx) is charged the event's price with its audit record and an
 * attempt that failed is audited uncharged; then records the attempt and, after a failure,
 * queues the next one `retryDelayMs` × 2^(attempts − 1) later (at most `retryDelayMaxMs`) until
 * `retryWindowMs` from the message's creation has passed, when the message is marked failed.
 */
export class Deliveries {
  /** Connections through the target policy's lookup: a name resolving inward is refused. */
  private readonly agent: Agent;
  private stopped = false;

  constructor(
    private readonly app: WebhookServices,
    private readonly boss: PgBoss,
    private readonly policy: TargetPolicy,
    private readonly config: Config["webhooks"],
    /** Tells this process's worker to look now. */
    private readonly wake: () => void,
  ) {
    this.agent = new Agent({
      connect: { lookup: policy.lookup, timeout: config.timeoutMs },
      headersTimeout: config.timeoutMs,
      bodyTimeout: config.timeoutMs,
      // A webhook endpoint is called now and then: no connection is kept for it.
      pipelining: 0,
    });
  }

  /**
   * Takes no more jobs. A fetch under way when pg-boss stopped its worker hands its jobs over
   * after pg-boss has said it stopped (it counted no job in progress): attempted then, they would
   * run on a store being closed. They fail instead, and run again later.
   */
  stop(): void {
    this.stopped = true;
  }

  async close(): Promise<void> {
    await this.agent.close();
  }

  /**
   * pg-boss's handler: a batch of up to `webhooks.concurrency` jobs, attempted together (one
   * attempt each). A full batch asks for the next at once rather than after the worker's poll
   * interval: a block for many endpoints is a queue to empty. A throw (the database) fails the
   * batch's jobs, which pg-boss runs again.
   */
  readonly work = async (jobs: PgBoss.Job<{ messageId: string }>[]): Promise<void> => {
    if (this.stopped) throw new Error("webhooks: the gateway is stopping");
    await Promise.all(jobs.map((job) => this.attempt(job.data.messageId)));
    if (jobs.length >= this.config.concurrency) this.wake();
  };

  async attempt(messageId: string): Promise<void> {
    const db = this.app.db;
    const message = await pendingMessage(db, messageId);
    if (!message || message.status !== "pending") return; // done already (a repeated job)
    const { endpoint } = message;
    const startedAt = Date.now();
    const over = (error: string) =>
      this.record(db, {
        messageId,
        httpStatus: null,
        error,
        latencyMs: 0,
        result: "refused",
        final: true,
      });
    if (endpoint.endedAt) return over(`the endpoint ended: ${endpoint.endedWhy ?? "deleted"}`);
    const owner = await liveOwner(db, endpoint.tokenId);
    if (!owner) {
      await endEndpoint(db, endpoint.id, "its token was revoked or expired");
      return over("the endpoint's token was revoked or expired");
    }
    // A name is checked by the connection's own lookup; an address is checked here.
    const literal = this.policy.literalRefusal(new URL(endpoint.url));
    if (literal) return over(literal); // the operator's allowance was withdrawn since

    const attempt = message.attempts + 1;
    const mark = await openMark(db, owner.accountId, messageId, this.app.credits.opts.processId);
    if (mark.chargedBefore) {
      // An earlier attempt was accepted and charged, and its process died before recording it.
      await this.record(db, {
        messageId,
        httpStatus: null,
        error: "accepted by an earlier attempt (its record was lost): not sent again",
        latencyMs: 0,
        result: "delivered",
      });
      return closeMark(db, owner.accountId, messageId);
    }
    const { cost, sent } = await this.send(message, owner, attempt, startedAt);
    const latencyMs = Date.now() - startedAt;
    const result = sent;
    try {
      await this.conclude(message, cost, result, latencyMs);
    } finally {
      await closeMark(db, owner.accountId, messageId);
    }
  }

  /** One POST of the message, through the metering pipeline: charged when the receiver took it. */
  private async send(message: Pending, owner: TokenOwner, attempt: number, startedAt: number) {
    const { endpoint } = message;
    let sent: Sent | null = null;
    const ctx = {
      services: this.app,
      requestId: `${message.id}.${attempt}`,
      owner,
      backend: "gateway" as const,
      backendSegment: "webhook",
      network: endpoint.network,
      startedAt,
      // The settle marks the message charged in the charge's own transaction (charge-mark.ts).
      idempotency: { key: chargeKey(message.id), rerun: false },
    };
    const price = eventPrice(this.app.config, endpoint.event, endpoint.network);
    const cost = await meter(ctx, {
      calls: [{ kind: "priced", method: endpoint.event, price }],
      execute: async () => {
        const s = await this.post(message);
        sent = s;
        return { value: null, outcomes: [sentOutcome(s)] };
      },
    });
    return { cost, sent: sent as Sent | null };
  }

  /** Records what the attempt came to: delivered, or the next attempt queued, or failed. */
  private async conclude(
    message: Pending,
    cost: Metered<null>,
    result: Sent | null,
    latencyMs: number,
  ): Promise<void> {
    const db = this.app.db;
    const messageId = message.id;
    if (cost.ok && result?.ok) {
      await this.record(db, {
        messageId,
        httpStatus: result.status,
        error: null,
        latencyMs,
        result: "delivered",
        auditId: cost.auditIds[0] ?? null,
      });
      return;
    }
    // Not sent (the balance or a cap refused it: the account may top up) or not accepted.
    const error = cost.ok ? (result?.ok === false ? result.error : "not sent") : cost.error.message;
    await this.retryOrFail(message, {
      httpStatus: result && !result.ok ? result.status : null,
      error,
      latencyMs: cost.ok ? latencyMs : 0,
      refused: !cost.ok,
    });
  }

  private async retryOrFail(
    message: Pending,
    a: { httpStatus: number | null; error: string; latencyMs: number; refused: boolean },
  ): Promise<void> {
    const attempts = message.attempts + 1;
    const delay = Math.min(
      this.config.retryDelayMs * 2 ** Math.min(attempts - 1, 30),
      this.config.retryDelayMaxMs,
    );
    const at = Date.now() + delay;
    const final = at - message.createdAt.getTime() > this.config.retryWindowMs;
    await this.app.db.transaction(async (tx) => {
      await this.record(tx, {
        messageId: message.id,
        httpStatus: a.httpStatus,
        error: a.error,
        latencyMs: a.latencyMs,
        result: a.refused ? "refused" : "retry",
        final,
      });
      if (!final) {
        await this.boss.send(
          DELIVERIES,
          { messageId: message.id },
          { startAfter: new Date(at), db: bossDb(tx) },
        );
      }
    });
    // A retry due before the worker's next look is looked for when due, not a poll later.
    if (!final && delay < this.config.pollMs) setTimeout(this.wake, delay + 1).unref();
  }

  /** Records an attempt (store) and counts it (metrics). */
  private async record(db: Queryable, a: Parameters<typeof recordAttempt>[1]): Promise<void> {
    const result = await recordAttempt(db, a);
    this.app.metrics.webhookAttempts.inc({ result });
    if (a.result !== "refused") this.app.metrics.webhookLatency.observe(a.latencyMs / 1000);
  }

  private async post(message: Pending): Promise<Sent> {
    const headers = {
      "content-type": "application/json",
      "user-agent": "blockgate-webhooks",
      ...signedHeaders(message.secret, message.id, message.payload, new Date()),
    };
    try {
      const answer = await request(message.endpoint.url, {
        method: "POST",
        headers,
        body: message.payload,
        dispatcher: this.agent,
        signal: AbortSignal.timeout(this.config.timeoutMs),
      });
      // The endpoint's answer is not read, only its status (and the body drained, bounded).
      await answer.body.dump({ limit: 64 * 1024 }).catch(() => {});
      if (answer.statusCode >= 200 && answer.statusCode < 300) {
        return { ok: true, status: answer.statusCode };
      }
      return { ok: false, status: answer.statusCode, error: `HTTP ${answer.statusCode}` };
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      return { ok: false, status: null, error: e.code ? `${e.code}: ${e.message}` : e.message };
    }
  }
}

function sentOutcome(s: Sent): CallOutcome {
  if (s.ok) return { kind: "answered", outcome: "ok", httpStatus: s.status };
  const code = s.status === null ? "UPSTREAM_UNAVAILABLE" : "UPSTREAM_ERROR";
  return { kind: "failed", error: gatewayError(code, `webhook endpoint: ${s.error}`) };
}
