import PgBoss from "pg-boss";
import { lostCreateRace } from "../db/concurrent-create.ts";
import type { Database, Queryable } from "../db/database.ts";

/**
 * pg-boss's queue of webhook deliveries: a job per attempt due, naming its message, or, for a batch
 * the dispatcher hands over to its own process, one job naming them all (held back: delivery.ts).
 */
export const DELIVERIES = "webhook-delivery";

export type DeliveryJob = { messageId: string } | { messageIds: string[] };

/** The messages a delivery job names. */
export function messagesOf(job: DeliveryJob): string[] {
  return "messageIds" in job ? job.messageIds : [job.messageId];
}

/**
 * How long a batch handed over is held back from pg-boss's workers: as long as pg-boss lets a
 * fetched job run before it expires and runs again (its default, which the queue keeps).
 */
export const HAND_OVER_HOLD_MS = 15 * 60_000;

/**
 * pg-boss's way into a database: our connection (PostgreSQL pool or PGlite), or a transaction.
 * Its installs and migrations are scripts of several statements (BEGIN; … COMMIT;), which a
 * prepared statement cannot hold: those go through `exec` (the database's, not a transaction's).
 */
export function bossDb(db: Queryable & { exec?: Database["exec"] }): PgBoss.Db {
  return {
    executeSql: async (text, values) => {
      if (db.exec && (values ?? []).length === 0 && /^\s*BEGIN;/.test(text)) {
        await db.exec(text);
        return { rows: [] };
      }
      return db.query(text, values ?? []);
    },
  };
}

/** A statement dropped: pg-boss reads a result without rows as nothing fetched or changed. */
const DROPPED = Object.freeze({}) as { rows: unknown[] };

/**
 * The queue's own way into the database, which can be shut. pg-boss does not await everything it
 * sends (a finished job's `complete`, a failed one's `fail`), so some of its statements may still
 * be on their way when it says it stopped: shutting waits for those, and any sent after is
 * dropped (its job then expires and runs again, which an attempt allows), so that none reaches a
 * closed store.
 */
export class QueueDb implements PgBoss.Db {
  private readonly inner: PgBoss.Db;
  private readonly pending = new Set<Promise<unknown>>();
  private shut = false;

  constructor(db: Database) {
    this.inner = bossDb({
      query: (sql, params) => db.query(sql, params),
      exec: (sql) => db.exec(sql),
    });
  }

  executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[] }> {
    if (this.shut) return Promise.resolve(DROPPED);
    const sent = this.inner.executeSql(text, values ?? []);
    this.pending.add(sent);
    const done = () => this.pending.delete(sent);
    sent.then(done, done);
    return sent;
  }

  /**
   * Waits for the statements on their way, and for those they lead to (a fetch's jobs refused,
   * which pg-boss then writes, a turn later); drops any sent from now on.
   */
  async close(): Promise<void> {
    while (this.pending.size > 0) {
      await Promise.allSettled([...this.pending]);
      await new Promise((resolve) => setImmediate(resolve));
    }
    this.shut = true;
  }
}

/**
 * The job queue in the gateway's own database: pg-boss keeps its tables in a schema of its own
 * beside ours (`<schema>_jobs`, so that stores sharing a server stay apart) and installs or
 * migrates them itself on start, under its own advisory lock.
 */
export async function openQueue(
  db: Database,
): Promise<{ boss: PgBoss; queueDb: QueueDb; schema: string }> {
  const { rows } = await db.query<{ schema: string }>("SELECT current_schema() AS schema");
  const schema = `${rows[0]?.schema ?? "public"}_jobs`;
  for (let attempt = 1; ; attempt++) {
    const queueDb = new QueueDb(db);
    // Cron is not used; maintenance (expiring stuck jobs, archiving) is.
    const boss = new PgBoss({ db: queueDb, schema, schedule: false });
    try {
      await boss.start();
      await boss.createQueue(DELIVERIES, { name: DELIVERIES, policy: "standard" });
      return { boss, queueDb, schema };
    } catch (err) {
      await boss.stop({ graceful: false, close: false, wait: true }).catch(() => {});
      await queueDb.close();
      // Processes starting together on a database without pg-boss's tables both install them:
      // the slower one loses the CREATE race, or, both creating the queue's partition at once,
      // PostgreSQL ends one as a deadlock (40P01; found by CI). It starts again and finds them.
      const deadlock = (err as { code?: string }).code === "40P01";
      if ((!lostCreateRace(err) && !deadlock) || attempt >= 3) throw err;
    }
  }
}

/**
 * On PGlite, analyzes the tables a delivery reads once, when the queue first has jobs (the
 * returned function is called whenever jobs were queued; PostgreSQL's autovacuum does this
 * there). PGlite has no autovacuum, so its tables are never analyzed otherwise, and the planner,
 * guessing, planned pg-boss's fetch as a join of the whole queue to the batch row by row, and the
 * dispatcher's endpoints as a scan of every token per endpoint: each grew with the square of what
 * it read (docs/benchmarks.md). The statistics need not be current: what the plans needed (a
 * queue's partition is one queue's; a token is found by its key) holds as the tables grow.
 */
export function analyzeOnce(db: Database, schema: string, warn: (err: unknown) => void) {
  let done = db.kind !== "pglite";
  return (): void => {
    if (done) return;
    done = true;
    db.exec(
      `ANALYZE "${schema}".job, tokens, webhook_endpoints, webhook_messages, idempotency_keys`,
    ).catch(warn);
  };
}
