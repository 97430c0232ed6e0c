import { createHash } from "node:crypto";
import { type HttpReply, joinedParts } from "../../http/reply.ts";
import { type GatewayError, gatewayError } from "../../protocol/errors/codes.ts";
import { stringifyJson } from "../../protocol/json/json.ts";
import type { CallContext, MeterServices } from "./context.ts";
import { auditOnly } from "./pipeline.ts";

/**
 * Idempotent retries: a request sent again with the same `Idempotency-Key` is not charged twice.
 * The key is recorded with a hash of the request; the settle that commits the charge marks it
 * settled in the same transaction, and the answer is stored after. A retry of a charged request
 * gets the stored answer (`idempotent-replayed: true`, audited `replayed`), or runs again free if
 * the process died before storing it; one that charged nothing runs afresh. 409 while the first
 * runs, 422 for the key with another request; keys kept for `idempotency.windowMs`.
 */

const KEY = /^[\x21-\x7e]{1,255}$/;

/** Headers not stored with an answer: they describe the request that carried it, not the answer. */
const PER_REQUEST = /^(x-request-id|x-credits-|connection$|content-length$)/i;

export async function idempotent<S extends MeterServices>(
  ctx: CallContext<S>,
  key: string | string[] | undefined,
  body: string,
  run: (ctx: CallContext<S>) => Promise<HttpReply>,
  failure: (error: GatewayError) => HttpReply,
): Promise<HttpReply> {
  if (key === undefined) return run(ctx);
  if (typeof key !== "string" || !KEY.test(key)) {
    return failure(
      gatewayError("BAD_REQUEST", "Idempotency-Key: 1 to 255 visible ASCII characters, once"),
    );
  }
  const hash = createHash("sha256")
    .update(`${ctx.backendSegment}\n${ctx.network}\n${body}`)
    .digest();
  if (!(await claimKey(ctx, key, hash))) {
    const row = await keyRow(ctx, key);
    if (!row) return idempotent(ctx, key, body, run, failure); // gone meanwhile: start over
    return answerRetry(ctx, key, hash, row, run, failure);
  }
  let reply: HttpReply;
  try {
    reply = await run({ ...ctx, idempotency: { key, rerun: false } });
  } catch (err) {
    await forget(ctx, key);
    throw err;
  }
  return remember(ctx, key, reply);
}

/**
 * Records the key for this request; false when it is held already. Keys past the window, or left
 * uncharged by a first attempt whose process died (known dead, or silent past the TTL), are free.
 */
async function claimKey(ctx: CallContext, key: string, hash: Buffer): Promise<boolean> {
  const { db, config } = ctx.services;
  const accountId = ctx.owner.accountId;
  await db.query(
    `DELETE FROM idempotency_keys k WHERE account_id = $1 AND key = $2 AND (
       created_at < now() - make_interval(secs => $3::double precision / 1000)
       OR (settled_at IS NULL AND (
         created_at < now() - make_interval(secs => $4::double precision / 1000)
         OR EXISTS (SELECT 1 FROM gateway_processes p
                    WHERE p.id = k.process_id AND p.stopped_at IS NOT NULL))))`,
    [accountId, key, config.idempotency.windowMs, config.ledger.holdTimeoutMs],
  );
  const { rows: inserted } = await db.query(
    `INSERT INTO idempotency_keys(account_id, key, request_hash, process_id)
     VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING key`,
    [accountId, key, hash, ctx.services.credits.opts.processId],
  );
  return inserted.length > 0;
}

interface KeyRow {
  request_hash: Uint8Array;
  settled: boolean;
  status: number | null;
  headers: Record<string, string> | null;
  body: Uint8Array | null;
}

async function keyRow(ctx: CallContext, key: string): Promise<KeyRow | undefined> {
  const { rows } = await ctx.services.db.query<KeyRow>(
    `SELECT request_hash, settled_at IS NOT NULL AS settled, status, headers, body
     FROM idempotency_keys WHERE account_id = $1 AND key = $2`,
    [ctx.owner.accountId, key],
  );
  return rows[0];
}

/** A retry: the stored answer, a refusal (another request, or the first still running), or a rerun. */
async function answerRetry<S extends MeterServices>(
  ctx: CallContext<S>,
  key: string,
  hash: Buffer,
  row: KeyRow,
  run: (ctx: CallContext<S>) => Promise<HttpReply>,
  failure: (error: GatewayError) => HttpReply,
): Promise<HttpReply> {
  if (!Buffer.from(row.request_hash).equals(hash)) {
    const message = "this Idempotency-Key was used for a different request";
    return failure(gatewayError("IDEMPOTENCY_KEY_REUSED", message));
  }
  if (row.status !== null && row.body !== null) {
    const audited = await auditOnly(ctx, [
      { method: "(replay)", outcome: "replayed", httpStatus: row.status },
    ]);
    const headers = { ...(row.headers ?? {}), ...audited.headers, "idempotent-replayed": "true" };
    return { status: row.status, body: null, raw: Buffer.from(row.body), headers };
  }
  if (!row.settled) {
    const message = "a request with this Idempotency-Key is still being answered";
    return failure(gatewayError("IDEMPOTENCY_IN_PROGRESS", message));
  }
  // Charged, but its answer never stored (the process died in between): run free of charge.
  return remember(ctx, key, await run({ ...ctx, idempotency: { key, rerun: true } }));
}

/** Stores the answer of a charged request; a request that charged nothing leaves no key. */
async function remember(ctx: CallContext, key: string, reply: HttpReply): Promise<HttpReply> {
  const bytes =
    reply.raw ?? (reply.parts ? joinedParts(reply.parts) : Buffer.from(stringifyJson(reply.body)));
  const headers = Object.fromEntries(
    Object.entries(reply.headers ?? {}).filter(([h]) => !PER_REQUEST.test(h)),
  );
  if (!reply.raw) headers["content-type"] ??= "application/json";
  const { rows } = await ctx.services.db.query(
    `UPDATE idempotency_keys SET status = $3, headers = $4, body = $5
     WHERE account_id = $1 AND key = $2 AND settled_at IS NOT NULL RETURNING key`,
    [ctx.owner.accountId, key, reply.status, JSON.stringify(headers), bytes],
  );
  if (rows.length === 0) await forget(ctx, key);
  return reply;
}

async function forget(ctx: CallContext, key: string): Promise<void> {
  await ctx.services.db.query(
    "DELETE FROM idempotency_keys WHERE account_id = $1 AND key = $2 AND settled_at IS NULL",
    [ctx.owner.accountId, key],
  );
}
