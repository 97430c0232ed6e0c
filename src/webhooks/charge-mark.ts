import type { Queryable } from "../db/database.ts";

/**
 * A webhook message's charge, made exactly once across crashes, through the idempotency keys the
 * HTTP routes use (src/billing/metering/idempotency.ts, migration 005): each attempt runs under the key
 * `webhook:<message id>`, and the settle statement that commits the delivery's charge marks that
 * key settled in the same transaction. A process that dies after the charge and before recording
 * the delivery leaves the mark: the next attempt finds it and records the message delivered,
 * without sending it again or charging again.
 */
export const chargeKey = (messageId: string) => `webhook:${messageId}`;

/**
 * Opens the mark an attempt's settle will set (an unsettled one left by a dead attempt is reused),
 * unless an earlier attempt at the message was charged (its endpoint accepted it): then nothing is
 * opened, and true says so. One statement: the look and the opening see the same snapshot.
 */
export async function openMark(
  db: Queryable,
  accountId: number,
  messageId: string,
  processId: string,
): Promise<{ chargedBefore: boolean }> {
  const { rows } = await db.query<{ settled: boolean }>(
    `WITH prior AS (
       SELECT settled_at IS NOT NULL AS settled FROM idempotency_keys
       WHERE account_id = $1 AND key = $2
     ), opened AS (
       INSERT INTO idempotency_keys(account_id, key, request_hash, process_id)
       VALUES ($1, $2, sha256(convert_to($2, 'UTF8')), $3)
       ON CONFLICT (account_id, key) DO UPDATE SET process_id = $3
       WHERE idempotency_keys.settled_at IS NULL
       RETURNING 1
     )
     SELECT coalesce((SELECT settled FROM prior), false) AS settled
     FROM (SELECT count(*) FROM opened) o`,
    [accountId, chargeKey(messageId), processId],
  );
  return { chargedBefore: rows[0]?.settled === true };
}

/** Drops the mark once the attempt is recorded: the message's own status says it from then on. */
export async function closeMark(
  db: Queryable,
  accountId: number,
  messageId: string,
): Promise<void> {
  await db.query("DELETE FROM idempotency_keys WHERE account_id = $1 AND key = $2", [
    accountId,
    chargeKey(messageId),
  ]);
}
