import type PgBoss from "pg-boss";
import type { Logger } from "pino";
import type { Config } from "../config/schema.ts";
import type { App } from "../metering/context.ts";
import { Deliveries } from "./delivery.ts";
import { Dispatcher } from "./dispatcher.ts";
import { DELIVERIES, openQueue } from "./queue.ts";
import { TargetPolicy } from "./targets.ts";

/**
 * The gateway's webhooks: the target policy registrations are checked against, the dispatcher
 * (the leading process turns chain events into messages) and this process's delivery worker
 * (every process sends what is due, from the queue in the database).
 */
export class Webhooks {
  readonly policy: TargetPolicy;
  private boss: PgBoss | null = null;
  private dispatcher: Dispatcher | null = null;
  private deliveries: Deliveries | null = null;

  constructor(
    private readonly config: Config["webhooks"],
    private readonly log: Logger,
  ) {
    this.policy = new TargetPolicy(config.allowTargets);
  }

  async start(app: App): Promise<void> {
    const boss = await openQueue(app.db);
    boss.on("error", (err: Error) => this.log.warn({ err }, "webhooks: the job queue failed"));
    this.boss = boss;
    const deliveries = new Deliveries(app, boss, this.policy, this.config);
    this.deliveries = deliveries;
    const worker = await boss.work(
      DELIVERIES,
      { pollingIntervalSeconds: this.config.pollMs / 1000, batchSize: this.config.concurrency },
      deliveries.work,
    );
    this.dispatcher = new Dispatcher(app, boss, () => boss.notifyWorker(worker));
    this.dispatcher.start();
  }

  /**
   * Stops dispatching and taking jobs; waits up to `waitMs` for attempts under way (an attempt
   * cut short is sent again once its job expires: the receiver drops the repeat by webhook-id).
   */
  async close(waitMs: number): Promise<void> {
    await this.dispatcher?.close();
    await this.boss?.stop({
      graceful: true,
      wait: true,
      close: false,
      timeout: Math.max(waitMs, 1),
    });
    await this.deliveries?.close();
  }
}
