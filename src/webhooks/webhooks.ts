import type PgBoss from "pg-boss";
import type { Logger } from "pino";
import type { Config } from "../config/schema.ts";
import { watchCreditsLow } from "./credits-low.ts";
import { Deliveries, WORKERS } from "./delivery.ts";
import { Dispatcher } from "./dispatcher.ts";
import { analyzeOnce, DELIVERIES, openQueue, type QueueDb } from "./queue.ts";
import type { WebhookServices } from "./services.ts";

/**
 * The gateway's webhooks at work: the dispatcher
 * (the leading process turns chain events into messages), the low-balance look (accounts under
 * their threshold become `credits.low` messages) and this process's delivery worker (every process
 * sends what is due, from the queue in the database).
 */
export class Webhooks {
  private boss: PgBoss | null = null;
  private queueDb: QueueDb | null = null;
  private dispatcher: Dispatcher | null = null;
  private deliveries: Deliveries | null = null;
  private creditsLow: ReturnType<typeof watchCreditsLow> | null = null;

  constructor(
    private readonly config: Config["webhooks"],
    private readonly log: Logger,
  ) {}

  async start(app: WebhookServices): Promise<void> {
    const { boss, queueDb, schema } = await openQueue(app.db);
    this.queueDb = queueDb;
    boss.on("error", (err: Error) => this.log.warn({ err }, "webhooks: the job queue failed"));
    this.boss = boss;
    const workers: string[] = [];
    const analyze = analyzeOnce(app.db, schema, (err) =>
      this.log.warn({ err }, "webhooks: the job queue's table was not analyzed"),
    );
    // Called when jobs were queued (or a full batch suggests more are waiting).
    const wake = () => {
      analyze();
      for (const worker of workers) boss.notifyWorker(worker);
    };
    const deliveries = new Deliveries(app, boss, app.webhookTargets, this.config, wake);
    this.deliveries = deliveries;
    for (let i = 0; i < WORKERS; i++) {
      const options = {
        pollingIntervalSeconds: this.config.pollMs / 1000,
        batchSize: deliveries.batchSize,
      };
      workers.push(await boss.work(DELIVERIES, options, deliveries.work));
    }
    this.dispatcher = new Dispatcher(app, boss, {
      batchSize: deliveries.batchSize,
      handOver: deliveries.handOver,
      wake,
      queued: analyze,
    });
    this.dispatcher.start();
    this.creditsLow = watchCreditsLow(app.db, boss, {
      everyMs: this.config.pollMs,
      retryMs: app.config.events.leaderRetryMs,
      wake,
      warn: (err) => this.log.warn({ err }, "webhooks: low balances were not looked at"),
    });
  }

  /** Looks for accounts under their low-balance threshold now (tests; else every pollMs). */
  async lookAtLowBalances(): Promise<void> {
    await this.creditsLow?.look();
  }

  /**
   * One attempt at each message now, outside the queue, together as one batch (tests; an
   * operator's manual retry).
   */
  async attempt(messageIds: string | readonly string[]): Promise<void> {
    await this.deliveries?.attempt(messageIds);
  }

  /**
   * Stops dispatching and taking jobs; waits up to `waitMs` for attempts under way (an attempt
   * cut short is sent again once its job expires: the receiver drops the repeat by webhook-id).
   */
  async close(waitMs: number): Promise<void> {
    await this.creditsLow?.stop();
    await this.dispatcher?.close();
    this.deliveries?.stop();
    await this.boss?.stop({
      graceful: true,
      wait: true,
      close: false,
      timeout: Math.max(waitMs, 1),
    });
    await this.deliveries?.close(waitMs);
    await this.queueDb?.close();
  }
}
