import type { Queryable } from "../db/database.ts";

/**
 * A webhook message's charge, made exactly once across crashes, through the idempotency keys the
 * HTTP routes use (src/billing/metering/idempotency.ts, migration 005): each attempt runs under the key
 * `webhook:<message id>`, and the settle statement that commits the delivery's charge marks that
 * key settled in the same transaction. A process that dies after the charge and before recording
 * the delivery leaves the mark: the next attempt finds it and records the message delivered,
 * without sending it again or charging again. The mark is dropped by the statement that records
 * the attempt (store.ts recordAttempts).
 */
export const chargeKey = (messageId: string) => `webhook:${messageId}`;

/** An attempt's mark: the account it charges, and the message. */
export interface MarkAsk {
  accountId: number;
  messageId: string;
}

/**
 * Opens the marks the attempts' settles will set (an unsettled one left by a dead attempt is
 * reused), except where an earlier attempt at the message was charged (its endpoint accepted it):
 * nothing is opened for those, and their message ids are returned. One statement for them all: the
 * look and the opening see the same snapshot. A message appears once.
 */
export async function openMarks(
  db: Queryable,
  asks: readonly MarkAsk[],
  processId: string,
): Promise<Set<string>> {
  if (asks.length === 0) return new Set();
  const { rows } = await db.query<{ charged: string[] | null }>(
    `WITH asked AS (
       SELECT (e->>0)::int8 AS account_id, e->>1 AS key FROM jsonb_array_elements($1::jsonb) e
     ), prior AS (
       SELECT k.key FROM idempotency_keys k JOIN asked a USING (account_id, key)
       WHERE k.settled_at IS NOT NULL
     ), opened AS (
       INSERT INTO idempotency_keys(account_id, key, request_hash, process_id)
       SELECT account_id, key, sha256(convert_to(key, 'UTF8')), $2 FROM asked
       ON CONFLICT (account_id, key) DO UPDATE SET process_id = $2
       WHERE idempotency_keys.settled_at IS NULL
       RETURNING 1
     )
     SELECT (SELECT array_agg(key) FROM prior) AS charged FROM (SELECT count(*) FROM opened) o`,
    // One JSON text: a list of strings is no value PGlite's prepared statements take.
    [JSON.stringify(asks.map((a) => [a.accountId, chargeKey(a.messageId)])), processId],
  );
  const prefix = chargeKey("").length;
  return new Set((rows[0]?.charged ?? []).map((key) => key.slice(prefix)));
}
