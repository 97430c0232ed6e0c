import { randomUUID } from "node:crypto";
import type PgBoss from "pg-boss";
import type { Database, Leadership, Queryable } from "../db/database.ts";
import { bossDb, DELIVERIES } from "./queue.ts";
import { createMessages, type NewMessage } from "./store.ts";

/** An account whose balance has just gone under its threshold. */
interface Crossed {
  id: number;
  name: string;
  balance: number;
  threshold: number;
  warnedAt: Date;
}

/**
 * Marks each account whose balance is under its low-balance threshold and not yet warned, and
 * re-arms those back at or over it: one warning per crossing, whichever process notices.
 */
async function crossings(tx: Queryable): Promise<Crossed[]> {
  await tx.query(
    `UPDATE accounts SET low_warned_at = NULL
     WHERE low_warned_at IS NOT NULL AND (low_balance_cc IS NULL OR balance >= low_balance_cc)`,
  );
  const { rows } = await tx.query<{
    id: number | string;
    name: string;
    balance: number | string;
    threshold: number | string;
    warnedAt: Date;
  }>(
    `UPDATE accounts SET low_warned_at = now()
     WHERE low_balance_cc IS NOT NULL AND balance < low_balance_cc AND low_warned_at IS NULL
     RETURNING id, name, balance, low_balance_cc AS threshold, low_warned_at AS "warnedAt"`,
  );
  return rows.map((r) => ({
    ...r,
    id: Number(r.id),
    balance: Number(r.balance),
    threshold: Number(r.threshold),
  }));
}

/**
 * The `credits.low` messages of one look: for each account that crossed, a message to each of its
 * live creditsLow endpoints, unique per endpoint and crossing, with its first delivery job, in the
 * transaction that marks the crossing. Returns how many were queued.
 */
export async function queueCreditsLow(db: Database, boss: PgBoss): Promise<number> {
  return db.transaction(async (tx) => {
    const fresh: NewMessage[] = [];
    for (const a of await crossings(tx)) {
      const { rows } = await tx.query<{ id: number | string; network: string }>(
        `SELECT id, network FROM webhook_endpoints
         WHERE account_id = $1 AND event = 'creditsLow' AND ended_at IS NULL`,
        [a.id],
      );
      for (const e of rows) {
        const id = `msg_${randomUUID().replaceAll("-", "")}`;
        const payload = JSON.stringify({
          type: "credits.low",
          timestamp: a.warnedAt.toISOString(),
          data: { account: a.name, balance: a.balance, threshold: a.threshold },
        });
        const eventId = `credits.low:${a.id}:${a.warnedAt.getTime()}`;
        fresh.push({ id, endpointId: Number(e.id), eventId, payload });
      }
    }
    const made = await createMessages(tx, fresh);
    const jobs = fresh
      .filter((m) => made.has(m.id))
      .map((m) => ({ name: DELIVERIES, data: { messageId: m.id } }));
    if (jobs.length > 0) await boss.insert(jobs, { db: bossDb(tx) });
    return jobs.length;
  });
}

/**
 * Looks for crossings every `everyMs` in the process that holds the `credits-low` role (one per
 * deployment; PGlite always), and wakes the delivery worker when it queued something.
 */
export function watchCreditsLow(
  db: Database,
  boss: PgBoss,
  opts: { everyMs: number; retryMs: number; wake: () => void; warn: (err: unknown) => void },
): { stop(): Promise<void>; look(): Promise<void> } {
  const role: Leadership = db.lead("credits-low", () => {}, opts.retryMs);
  const look = async () => {
    if (!role.leading()) return;
    try {
      if ((await queueCreditsLow(db, boss)) > 0) opts.wake();
    } catch (err) {
      opts.warn(err);
    }
  };
  const timer = setInterval(() => void look(), opts.everyMs);
  timer.unref();
  return {
    look,
    async stop() {
      clearInterval(timer);
      await role.stop();
    },
  };
}
