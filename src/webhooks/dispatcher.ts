import { randomUUID } from "node:crypto";
import type PgBoss from "pg-boss";
import type { NetworkName } from "../config/schema.ts";
import type { EventSource } from "../events/sources.ts";
import type { ChainEvent } from "../events/types.ts";
import { bossDb, DELIVERIES, type DeliveryJob, HAND_OVER_HOLD_MS } from "./queue.ts";
import type { WebhookServices } from "./services.ts";
import { sourceFor } from "./sources.ts";
import {
  COMPLETED,
  createMessages,
  endEndpoints,
  type LiveEndpoint,
  liveEndpoints,
  type Pending,
} from "./store.ts";

/**
 * Turns the chain's events into webhook messages, in the leading process only (the one that
 * follows the chains), so each endpoint's source runs once: for each event, each live endpoint
 * of its network asks its source (the same sources as the GraphQL subscriptions) what to tell,
 * and what there is becomes a message, in one transaction with its first delivery's job (a
 * statement for the messages, one for their jobs). The first batch of an event's messages this
 * process attempts at once (handed over, under one held job); the rest wait for any process's
 * worker. A message is unique per endpoint and event, so an event announced twice queues nothing
 * more.
 */
export class Dispatcher {
  /** Endpoint id → its source (which remembers what it told last, e.g. a confirmation count). */
  private readonly sources = new Map<number, EventSource<unknown>>();
  /** Each network's events are dispatched one after another, in order. */
  private readonly queues = new Map<NetworkName, Promise<void>>();
  private readonly stops: (() => void)[] = [];

  constructor(
    private readonly app: WebhookServices,
    private readonly boss: PgBoss,
    private readonly local: LocalDeliveries,
  ) {}

  start(): void {
    this.stops.push(
      this.app.events.observe((event) => {
        const before = this.queues.get(event.network) ?? Promise.resolve();
        this.queues.set(
          event.network,
          before.then(() => this.dispatch(event)),
        );
      }),
    );
  }

  /** Stops hearing events and waits for the dispatches under way. */
  async close(): Promise<void> {
    for (const stop of this.stops.splice(0)) stop();
    await Promise.all(this.queues.values());
  }

  private async dispatch(event: ChainEvent): Promise<void> {
    try {
      if (!(await this.app.events.leading())) return;
      const endpoints = await liveEndpoints(this.app.db, event.network);
      const live = new Set(endpoints.map((e) => e.id));
      for (const id of this.sources.keys()) if (!live.has(id)) this.sources.delete(id);
      // Each endpoint's source is asked at once (a source's look-up goes to the node, whose pool
      // combines them); the messages of the event are written in one transaction.
      const told = (await Promise.all(endpoints.map((e) => this.tell(e, event)))).filter(
        (m): m is Told => m !== null,
      );
      if (told.length === 0) return;
      const { handed, held, queued } = await this.queue(told, event.id);
      for (const m of told) if (m.last) this.sources.delete(m.endpoint.id);
      this.local.queued();
      if (handed.length > 0) this.local.handOver(handed, held);
      if (queued > 0) this.local.wake();
    } catch (err) {
      this.app.log.warn({ err, network: event.network }, "webhooks: an event was not dispatched");
    }
  }

  /**
   * Writes the event's messages and their jobs in one transaction: the first batch of them handed
   * over to this process's deliveries, under one job held back (delivery.ts handOver), the rest a
   * job each for any process's worker.
   */
  private async queue(told: Told[], eventId: string) {
    const fresh = told.map((m) => ({
      id: `msg_${randomUUID().replaceAll("-", "")}`,
      endpointId: m.endpoint.id,
      eventId,
      payload: m.payload,
      told: m,
    }));
    const held = randomUUID();
    return this.app.db.transaction(async (tx) => {
      const made = await createMessages(tx, fresh);
      const written = fresh.filter((m) => made.has(m.id));
      const handed = written.slice(0, this.local.batchSize);
      const jobs: PgBoss.JobInsert<DeliveryJob>[] = written
        .slice(handed.length)
        .map((m) => ({ name: DELIVERIES, data: { messageId: m.id } }));
      const queued = jobs.length;
      if (handed.length > 0) {
        const data = { messageIds: handed.map((m) => m.id) };
        const startAfter = new Date(Date.now() + HAND_OVER_HOLD_MS);
        jobs.push({ id: held, name: DELIVERIES, data, startAfter });
      }
      const done = told.filter((m) => m.last).map((m) => m.endpoint.id);
      await endEndpoints(tx, done, COMPLETED);
      if (jobs.length > 0) await this.boss.insert(jobs, { db: bossDb(tx) });
      const pending = handed.map((m) => pendingOf(m, made.get(m.id) ?? new Date()));
      return { handed: pending, held, queued };
    });
  }

  /** What `endpoint`'s source makes of the event: its message's payload, or null for nothing. */
  private async tell(endpoint: LiveEndpoint, event: ChainEvent): Promise<Told | null> {
    let source = this.sources.get(endpoint.id);
    if (!source) {
      const made = sourceFor(this.app, endpoint);
      if (!made) return null; // its network has no node now: nothing to tell
      source = made;
      this.sources.set(endpoint.id, source);
    }
    let value: unknown;
    try {
      value = await source.translate(event);
    } catch (err) {
      this.app.log.warn({ err, endpoint: endpoint.id }, "webhooks: an endpoint's source failed");
      return null;
    }
    if (value === null) return null;
    const payload = JSON.stringify(
      {
        type: endpoint.event,
        timestamp: new Date().toISOString(),
        data: { network: endpoint.network, ...dataOf(value) },
      },
      satoshis,
    );
    return { endpoint, payload, last: source.last?.(value) ?? false };
  }
}

/** This process's deliveries, as the dispatcher hands them work. */
export interface LocalDeliveries {
  /** Messages attempted at once, under one held job (delivery.ts handOver). */
  batchSize: number;
  handOver(messages: readonly Pending[], heldJob: string): void;
  /** Tells the workers to look now (a job need not wait for their poll). */
  wake(): void;
  /** Messages were queued (queue.ts analyzeOnce). */
  queued(): void;
}

/** A message an endpoint is to get for an event, and whether it is the endpoint's last. */
interface Told {
  endpoint: LiveEndpoint;
  payload: string;
  last: boolean;
}

/** Amounts (bigint satoshis) as JSON integers: exact, every amount being below 2^53. */
function satoshis(_key: string, value: unknown): unknown {
  return typeof value === "bigint" ? Number(value) : value;
}

/** An event's fields for a payload: a chain event's own id is the gateway's, not the receiver's. */
function dataOf(value: unknown): Record<string, unknown> {
  if (typeof value !== "object" || value === null) return { value };
  const { id: _id, network: _network, ...rest } = value as Record<string, unknown>;
  return rest;
}

/** A message just written, as an attempt at it needs it (what delivery's read would find). */
function pendingOf(m: { id: string; payload: string; told: Told }, createdAt: Date): Pending {
  const { secret, owner, ...endpoint } = m.told.endpoint;
  return {
    id: m.id,
    payload: m.payload,
    createdAt,
    attempts: 0,
    status: "pending",
    endpoint: m.told.last ? { ...endpoint, endedAt: createdAt, endedWhy: COMPLETED } : endpoint,
    secret,
    owner,
  };
}
