import type PgBoss from "pg-boss";
import { Agent, request } from "undici";
import type { TokenOwner } from "../access/tokens.ts";
import { type CallOutcome, type Metered, meter } from "../billing/metering/pipeline.ts";
import { eventPrice } from "../billing/pricing/prices.ts";
import type { Config } from "../config/schema.ts";
import { gatewayError } from "../protocol/errors/codes.ts";
import { within } from "../util/cached-check.ts";
import { chargeKey, openMarks } from "./charge-mark.ts";
import { Deadlines } from "./deadlines.ts";
import { Gate, Slots } from "./gate.ts";
import { bossDb, DELIVERIES, type DeliveryJob, messagesOf } from "./queue.ts";
import type { WebhookServices } from "./services.ts";
import { signedHeaders } from "./signing.ts";
import {
  type AttemptRecord,
  COMPLETED,
  endEndpoints,
  type Pending,
  pendingMessages,
  recordAttempts,
  storedResult,
} from "./store.ts";
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
  /** The POSTs under way, across the batches being worked: at most `webhooks.concurrency`. */
  private readonly sending: Slots;
  /** Each POST's whole time (connecting, sending, the answer read) limited to `timeoutMs`. */
  private readonly deadlines: Deadlines;
  /** Jobs one fetch takes (batchSizeFor). */
  readonly batchSize: number;
  /** Batches begun, in order: a batch's rank for the POST slots. */
  private batches = 0;
  /** Messages being attempted here: a second job naming one (a repeat) waits for nothing. */
  private readonly attempting = new Set<string>();
  /** The batches handed over by the dispatcher, under way. */
  private readonly handedOver = new Set<Promise<void>>();
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
    this.sending = new Slots(config.concurrency);
    this.deadlines = new Deadlines(config.timeoutMs);
    this.batchSize = batchSizeFor(config.concurrency);
  }

  /**
   * Takes no more jobs, and sends none of the POSTs still waiting for a slot. A fetch under way
   * when pg-boss stopped its worker hands its jobs over after pg-boss has said it stopped (it
   * counted no job in progress): attempted then, they would run on a store being closed. They
   * fail instead, and run again later.
   */
  stop(): void {
    this.stopped = true;
  }

  /** Waits up to `waitMs` for the batches handed over (their POSTs not sent once stopped). */
  async close(waitMs: number): Promise<void> {
    await within(Promise.all(this.handedOver), waitMs, null);
    await this.agent.close();
  }

  /**
   * pg-boss's handler: a batch of up to `batchSize` jobs, attempted together (one attempt each),
   * while the other worker's batch may be under way. A full batch asks for the next at once rather
   * than after the worker's poll interval: a block for many endpoints is a queue to empty. A throw
   * (the database) fails the batch's jobs, which pg-boss runs again.
   */
  readonly work = async (jobs: PgBoss.Job<DeliveryJob>[]): Promise<void> => {
    if (this.stopped) throw new Error("webhooks: the gateway is stopping");
    await this.attempt(jobs.flatMap((job) => messagesOf(job.data)));
    if (jobs.length >= this.batchSize) this.wake();
  };

  /**
   * Attempts messages the dispatcher of this process has just written, as one batch, without
   * pg-boss's fetch or a read of what it knows already: their job (`held`, naming them all) was
   * queued to start only after `HAND_OVER_HOLD_MS`, and is deleted once they are recorded. Should
   * this process die first, the job runs then, as a fetched job runs again once expired
   * (docs/decisions/0065-first-attempts-handed-over.md).
   */
  readonly handOver = (messages: readonly Pending[], held: string): void => {
    const mine = messages.filter((m) => !this.attempting.has(m.id));
    for (const m of mine) this.attempting.add(m.id);
    // Let go of the messages once attempted: a retry queued by their record may be fetched at
    // once, and would find them still being attempted here while the held job is deleted.
    const attempted = this.attemptMessages(mine, this.batches++).finally(() => {
      for (const m of mine) this.attempting.delete(m.id);
    });
    const done = attempted
      .then(
        () => this.boss.deleteJob(DELIVERIES, held),
        (err: unknown) => this.handedOverFailed(err, mine, held),
      )
      .catch((err: unknown) =>
        this.app.log.warn({ err }, "webhooks: a batch handed over is left to its held job"),
      )
      .finally(() => this.handedOver.delete(done));
    this.handedOver.add(done);
  };

  /** A batch handed over whose statements failed: queued again now, or left to its held job. */
  private async handedOverFailed(err: unknown, messages: readonly Pending[], held: string) {
    // Cut short by the gateway stopping (its store closing): the held job runs it later.
    if (this.stopped) {
      this.app.log.warn({ err }, "webhooks: a batch handed over is left to its held job");
      return;
    }
    // What was not recorded is attempted again as a failed batch's jobs are: soon, by a job due
    // now (what was recorded, it skips), rather than once the hold is over.
    this.app.log.warn({ err }, "webhooks: a batch handed over failed; it is queued again");
    const messageIds = messages.map((m) => m.id);
    await this.boss.insert([{ name: DELIVERIES, data: { messageIds } }]);
    await this.boss.deleteJob(DELIVERIES, held);
  }

  /**
   * One attempt at each message of `ids` still pending (a message named twice, by a repeated job,
   * once), with a statement per step for them all rather than per message: the read of the
   * messages, their endpoints and owners; the charge marks opened; the POSTs, each through the
   * metering pipeline, their settles gathered (Gate); the attempts recorded and the marks closed.
   * A delivery that threw (its settle failed) keeps its mark and is not recorded: the batch
   * throws once the others are recorded, and its job runs again.
   */
  async attempt(ids: string | readonly string[]): Promise<void> {
    const mine = [...new Set(typeof ids === "string" ? [ids] : ids)].filter(
      (id) => !this.attempting.has(id),
    );
    for (const id of mine) this.attempting.add(id);
    try {
      await this.attemptOnce(mine, this.batches++);
    } finally {
      for (const id of mine) this.attempting.delete(id);
    }
  }

  private async attemptOnce(ids: string[], rank: number): Promise<void> {
    if (ids.length === 0) return;
    const messages = await pendingMessages(this.app.db, ids);
    await this.attemptMessages(messages.values(), rank);
  }

  /** One attempt at each of `messages` (read or handed over), as attemptOnce describes. */
  private async attemptMessages(messages: Iterable<Pending>, rank: number): Promise<void> {
    const db = this.app.db;
    const records: AttemptRecord[] = [];
    const ended: number[] = [];
    const sendable: { message: Pending; owner: TokenOwner }[] = [];
    for (const message of messages) {
      if (message.status !== "pending") continue; // done already (a repeated job)
      const refused = this.refusal(message);
      if (refused === null && message.owner) {
        sendable.push({ message, owner: message.owner });
        continue;
      }
      if (!message.owner && !message.endpoint.endedAt) ended.push(message.endpoint.id);
      records.push(refusedFor(message.id, refused ?? TOKEN_GONE));
    }
    await endEndpoints(db, ended, "its token was revoked or expired");
    const marks = sendable.map((s) => ({ accountId: s.owner.accountId, messageId: s.message.id }));
    const chargedBefore = await openMarks(db, marks, this.app.credits.opts.processId);
    const tries = sendable.filter((s) => !chargedBefore.has(s.message.id));
    for (const s of sendable) {
      if (!chargedBefore.has(s.message.id)) continue;
      // An earlier attempt was accepted and charged, and its process died before recording it.
      records.push({
        messageId: s.message.id,
        httpStatus: null,
        error: "accepted by an earlier attempt (its record was lost): not sent again",
        latencyMs: 0,
        result: "delivered",
        mark: markOf(s.owner, s.message.id),
      });
    }
    const gate = new Gate(tries.length);
    // As many as can be POSTed at once start now, the rest a turn later: the first POSTs then
    // connect and write without waiting for every other delivery's metering to begin.
    const later = new Promise<void>((next) => setImmediate(next));
    const tried = await Promise.allSettled(
      tries.map((s, i) => {
        const send = () => this.send(s.message, s.owner, gate, rank);
        return i < this.config.concurrency ? send() : later.then(send);
      }),
    );
    const retries: Retry[] = [];
    let failure: unknown = null;
    for (const [i, t] of tried.entries()) {
      const { message, owner } = tries[i] as (typeof tries)[number];
      if (t.status === "rejected") {
        failure ??= t.reason;
        continue;
      }
      const retry = this.retryOf(message);
      const record = { ...this.conclude(message, t.value, retry), mark: markOf(owner, message.id) };
      records.push(record);
      if (record.result !== "delivered" && !record.final) retries.push(retry);
    }
    await this.record(records, retries);
    if (failure !== null) throw failure;
  }

  /** Why the message is not sent, for good; null when it may be. */
  private refusal(message: Pending): string | null {
    const { endpoint } = message;
    // Its last message (the dispatcher ended it as it wrote that) is still sent.
    if (endpoint.endedAt && endpoint.endedWhy !== COMPLETED) {
      return `the endpoint ended: ${endpoint.endedWhy ?? "deleted"}`;
    }
    if (!message.owner) return TOKEN_GONE;
    // A name is checked by the connection's own lookup; an address is checked here.
    return this.policy.literalRefusal(new URL(endpoint.url)); // the allowance was withdrawn since
  }

  /**
   * One POST of the message, through the metering pipeline: charged when the receiver took it.
   * Its settle waits at `gate` for the batch's other POSTs, so that theirs go in one statement.
   */
  private async send(
    message: Pending,
    owner: TokenOwner,
    gate: Gate,
    rank: number,
  ): Promise<Tried> {
    const { endpoint } = message;
    const ctx = {
      services: this.app,
      requestId: `${message.id}.${message.attempts + 1}`,
      owner,
      backend: "gateway" as const,
      backendSegment: "webhook",
      network: endpoint.network,
      startedAt: Date.now(),
      // The settle marks the message charged in the charge's own transaction (charge-mark.ts).
      idempotency: { key: chargeKey(message.id), rerun: false },
    };
    const price = eventPrice(this.app.config, endpoint.event, endpoint.network);
    const out: { sent: Sent | null; latencyMs: number } = { sent: null, latencyMs: 0 };
    try {
      const cost = await meter(ctx, {
        calls: [{ kind: "priced", method: endpoint.event, price }],
        execute: async () => {
          const sent = await this.sending.run(rank, async () => {
            // A batch's POSTs wait their turn: once the gateway stops, those still waiting are
            // not sent (uncharged, tried again later), so that the drain is not held by them.
            if (this.stopped) return NOT_SENT_STOPPING;
            const posted = Date.now();
            const s = await this.post(message);
            out.latencyMs = Date.now() - posted;
            return s;
          });
          out.sent = sent;
          await gate.arrive();
          return { value: null, outcomes: [sentOutcome(sent)] };
        },
      });
      return { cost, ...out };
    } finally {
      // Refused before it ran (the balance, a cap), or failed: the others need not wait for it.
      if (!out.sent) void gate.arrive();
    }
  }

  /** What the attempt came to: delivered, or another attempt to come, or failed. */
  private conclude(message: Pending, tried: Tried, retry: Retry): AttemptRecord {
    const { cost, sent, latencyMs } = tried;
    if (cost.ok && sent?.ok) {
      return {
        messageId: message.id,
        httpStatus: sent.status,
        error: null,
        latencyMs,
        result: "delivered",
        auditId: cost.auditIds[0] ?? null,
      };
    }
    // Not sent (the balance or a cap refused it: the account may top up) or not accepted.
    return {
      messageId: message.id,
      httpStatus: sent && !sent.ok ? sent.status : null,
      error: cost.ok ? (sent?.ok === false ? sent.error : "not sent") : cost.error.message,
      latencyMs: cost.ok ? latencyMs : 0,
      result: cost.ok ? "retry" : "refused",
      final: retry.at - message.createdAt.getTime() > this.config.retryWindowMs,
    };
  }

  /** The next attempt: `retryDelayMs` × 2^(attempts − 1) after this one, at most `retryDelayMaxMs`. */
  private retryOf(message: Pending): Retry {
    const attempts = message.attempts + 1;
    const delay = Math.min(
      this.config.retryDelayMs * 2 ** Math.min(attempts - 1, 30),
      this.config.retryDelayMaxMs,
    );
    return { messageId: message.id, delay, at: Date.now() + delay };
  }

  /**
   * Records the attempts (one statement) and queues the next attempts of those to be retried, in
   * one transaction with them; counts them (metrics).
   */
  private async record(records: readonly AttemptRecord[], retries: readonly Retry[]) {
    if (retries.length === 0) await recordAttempts(this.app.db, records);
    else {
      await this.app.db.transaction(async (tx) => {
        await recordAttempts(tx, records);
        const jobs = retries.map((r) => ({
          name: DELIVERIES,
          data: { messageId: r.messageId },
          startAfter: new Date(r.at),
        }));
        await this.boss.insert(jobs, { db: bossDb(tx) });
      });
    }
    for (const a of records) {
      this.app.metrics.webhookAttempts.inc({ result: storedResult(a) });
      if (a.result !== "refused") this.app.metrics.webhookLatency.observe(a.latencyMs / 1000);
    }
    // A retry due before the worker's next look is looked for when due, not a poll later.
    const soonest = Math.min(...retries.map((r) => r.delay));
    if (soonest < this.config.pollMs) setTimeout(this.wake, soonest + 1).unref();
  }

  private async post(message: Pending): Promise<Sent> {
    const headers = {
      "content-type": "application/json",
      "user-agent": "blockgate-webhooks",
      ...signedHeaders(message.secret, message.id, message.payload, new Date()),
    };
    const limit = this.deadlines.start();
    try {
      const answer = await request(message.endpoint.url, {
        method: "POST",
        headers,
        body: message.payload,
        dispatcher: this.agent,
        signal: limit.signal,
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
    } finally {
      limit.done();
    }
  }
}

/** Batches worked at once by each process (pg-boss workers): one's POSTs overlap another's statements. */
export const WORKERS = 2;

/**
 * Jobs one worker's fetch takes: twenty sends' worth (at most 200, at least `concurrency`), so
 * that each statement of a batch (the fetch, the read, the marks, the settle, the record, the
 * completion) serves many deliveries, and a block's messages for as many endpoints as one fetch
 * takes are one batch, whose POSTs no other batch's statements interrupt
 * (docs/decisions/0064-webhook-fetches-of-twenty-sends.md); the POSTs under way stay at most
 * `concurrency`, shared by the workers.
 */
export function batchSizeFor(concurrency: number): number {
  return Math.max(concurrency, Math.min(concurrency * 20, 200));
}

/** What one metered attempt came to, and how long its POST took (the endpoint's time). */
interface Tried {
  cost: Metered<null>;
  sent: Sent | null;
  latencyMs: number;
}

/** A message's next attempt: when, and how long from now. */
interface Retry {
  messageId: string;
  delay: number;
  at: number;
}

const TOKEN_GONE = "the endpoint's token was revoked or expired";

const NOT_SENT_STOPPING: Sent = {
  ok: false,
  status: null,
  error: "not sent: the gateway is stopping",
};

const markOf = (owner: TokenOwner, messageId: string) => ({
  accountId: owner.accountId,
  key: chargeKey(messageId),
});

const refusedFor = (messageId: string, error: string): AttemptRecord => ({
  messageId,
  httpStatus: null,
  error,
  latencyMs: 0,
  result: "refused",
  final: true,
});

function sentOutcome(s: Sent): CallOutcome {
  if (s.ok) return { kind: "answered", outcome: "ok", httpStatus: s.status };
  const code = s.status === null ? "UPSTREAM_UNAVAILABLE" : "UPSTREAM_ERROR";
  return { kind: "failed", error: gatewayError(code, `webhook endpoint: ${s.error}`) };
}
