import { EventEmitter } from "node:events";
import { Redis } from "ioredis";
import type { Logger } from "pino";
import type { EventBus } from "./bus.ts";

export interface RedisBusOptions {
  url: string;
  /** One per deployment and database schema: processes on other ledgers never hear it. */
  channel: string;
  /** A PUBLISH slower than this fails: the event goes through the fallback instead. */
  timeoutMs: number;
}

/**
 * Chain events over Redis pub/sub: a PUBLISH reaches every subscribed process in one hop, without
 * holding a PostgreSQL connection per process nor NOTIFY's queue. Redis may lose what it carries
 * (DESIGN.md), so the database's bus stays beside it: every process listens on both, and an event
 * Redis would not take (unreachable, slow) is published on the fallback instead — nothing is lost,
 * and a process hearing one event on both drops the repeat by its id. An unreachable Redis at
 * startup is not fatal: ioredis keeps trying (and resubscribes), NOTIFY carries events meanwhile.
 * What Redis took while one process's subscription was down is lost to that process, as a NOTIFY
 * is while its LISTEN connection reconnects.
 */
export class RedisBus implements EventBus {
  /** Subscriber mode takes a connection to itself; PUBLISH goes on another. */
  private readonly sub: Redis;
  private readonly pub: Redis;
  private readonly local = new EventEmitter();
  private warned = false;
  private readonly listening: Promise<unknown>;

  constructor(
    private readonly opts: RedisBusOptions,
    private readonly fallback: EventBus,
    private readonly log: Logger,
  ) {
    this.local.setMaxListeners(0);
    const common = {
      connectTimeout: 1_000,
      // Reconnect forever, backing off to 2 s: Redis may come back at any time.
      retryStrategy: (times: number) => Math.min(times * 100, 2_000),
    };
    // Its commands are retried without end: a subscription that gave up would leave this process
    // deaf to what others publish on Redis once it is back.
    this.sub = new Redis(opts.url, {
      ...common,
      autoResubscribe: true,
      maxRetriesPerRequest: null,
    });
    this.pub = new Redis(opts.url, {
      ...common,
      commandTimeout: opts.timeoutMs,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
    });
    const failed = (err: Error) => {
      if (!this.warned) {
        log.warn({ err: err.message }, "chain events: Redis unreachable, NOTIFY carries them");
      }
      this.warned = true;
    };
    this.sub.on("error", failed);
    this.pub.on("error", failed);
    this.pub.on("ready", () => {
      this.warned = false;
    });
    this.sub.on("message", (channel: string, payload: string) => {
      if (channel === opts.channel) this.local.emit("payload", payload);
    });
    // Subscribed once connected (ioredis' ready check must not meet a subscribed connection);
    // from then on ioredis subscribes again after each reconnect.
    this.listening = new Promise((resolve, reject) => {
      this.sub.once("ready", () => this.sub.subscribe(opts.channel).then(resolve, reject));
    });
    this.listening.catch(failed);
  }

  async publish(payload: string): Promise<void> {
    // Heard here at once; the echo from Redis is dropped as a repeat.
    this.local.emit("payload", payload);
    try {
      await this.pub.publish(this.opts.channel, payload);
    } catch (err) {
      this.log.warn(
        { err: err instanceof Error ? err.message : String(err) },
        "chain event: Redis refused it, published through NOTIFY",
      );
      await this.fallback.publish(payload);
    }
  }

  subscribe(fn: (payload: string) => void): void {
    this.local.on("payload", fn);
    this.fallback.subscribe(fn);
  }

  /**
   * Subscribed, and the publishing connection up (until then events go through NOTIFY); rejects
   * at the first connection error, so that startup does not wait on a Redis that is down.
   */
  async ready(): Promise<void> {
    const up = (async () => {
      await this.listening;
      if (this.pub.status !== "ready") await new Promise((r) => this.pub.once("ready", r));
    })();
    const down = new Promise<never>((_, reject) => {
      this.sub.once("error", reject);
      this.pub.once("error", reject);
    });
    down.catch(() => {});
    await Promise.race([up, down]);
  }

  async close(): Promise<void> {
    this.local.removeAllListeners();
    this.sub.disconnect();
    this.pub.disconnect();
    await this.fallback.close();
  }
}
