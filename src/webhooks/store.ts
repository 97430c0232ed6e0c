import { type OwnerRow, ownerOf, type TokenOwner } from "../access/tokens.ts";
import type { NetworkName } from "../config/schema.ts";
import type { Queryable } from "../db/database.ts";
import type { EventName } from "../events/sources.ts";

/** What an endpoint follows: an event and its arguments (as its GraphQL subscription takes them). */
export interface EndpointArgs {
  txid?: string;
  until?: number;
  address?: string;
  targets?: number[];
}

export interface Endpoint {
  id: number;
  accountId: number;
  tokenId: number;
  network: NetworkName;
  url: string;
  event: EventName;
  args: EndpointArgs;
  description: string | null;
  createdAt: Date;
  endedAt: Date | null;
  endedWhy: string | null;
}

interface EndpointRow {
  id: string | number;
  account_id: string | number;
  token_id: string | number;
  network: NetworkName;
  url: string;
  event: EventName;
  args: EndpointArgs | string;
  description: string | null;
  /** Text where the row came as JSON. */
  created_at: Date | string;
  ended_at: Date | string | null;
  ended_why: string | null;
}

const COLUMNS =
  "id, account_id, token_id, network, url, event, args, description, created_at, ended_at, ended_why";

/** The same columns of `webhook_endpoints e`, in a join. */
const E_COLUMNS = COLUMNS.split(", ")
  .map((c) => `e.${c}`)
  .join(", ");

function endpointOf(r: EndpointRow): Endpoint {
  return {
    id: Number(r.id),
    accountId: Number(r.account_id),
    tokenId: Number(r.token_id),
    network: r.network,
    url: r.url,
    event: r.event,
    args: typeof r.args === "string" ? (JSON.parse(r.args) as EndpointArgs) : r.args,
    description: r.description,
    createdAt: new Date(r.created_at),
    endedAt: r.ended_at ? new Date(r.ended_at) : null,
    endedWhy: r.ended_why,
  };
}

export async function createEndpoint(
  db: Queryable,
  e: Omit<Endpoint, "id" | "createdAt" | "endedAt" | "endedWhy"> & { secret: string },
): Promise<Endpoint> {
  const { rows } = await db.query<EndpointRow>(
    `INSERT INTO webhook_endpoints(account_id, token_id, network, url, event, args, secret, description)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${COLUMNS}`,
    [
      e.accountId,
      e.tokenId,
      e.network,
      e.url,
      e.event,
      JSON.stringify(e.args),
      e.secret,
      e.description,
    ],
  );
  return endpointOf(rows[0]!);
}

/** Live endpoints an account holds. */
export async function countLiveEndpoints(db: Queryable, accountId: number): Promise<number> {
  const { rows } = await db.query<{ n: string | number }>(
    "SELECT count(*) AS n FROM webhook_endpoints WHERE account_id = $1 AND ended_at IS NULL",
    [accountId],
  );
  return Number(rows[0]?.n ?? 0);
}

/** An account's endpoints, live first, newest first (`limit` of them). */
export async function listEndpoints(
  db: Queryable,
  accountId: number,
  limit = 100,
): Promise<Endpoint[]> {
  const { rows } = await db.query<EndpointRow>(
    `SELECT ${COLUMNS} FROM webhook_endpoints WHERE account_id = $1
     ORDER BY (ended_at IS NULL) DESC, id DESC LIMIT $2`,
    [accountId, limit],
  );
  return rows.map(endpointOf);
}

/** A live endpoint as the dispatcher reads it: with what sending to it needs. */
export interface LiveEndpoint extends Endpoint {
  secret: string;
  owner: TokenOwner;
}

/** The live endpoints following `network` whose token is live (the dispatcher's list). */
export async function liveEndpoints(db: Queryable, network: NetworkName): Promise<LiveEndpoint[]> {
  // An endpoint whose token is revoked or expired gets no more messages (its next attempt, if
  // one is queued, ends it). The rows come as one JSON value: every endpoint of a network is read
  // at each event, and a driver decodes a row's columns one by one in JavaScript, where one
  // JSON.parse of them all costs a fraction of that.
  const { rows } = await db.query<{ endpoints: LiveRow[] | null }>(
    `SELECT json_agg(x ORDER BY x.id) AS endpoints FROM (
       SELECT ${E_COLUMNS}, e.secret, ${OWNER_COLUMNS}
       FROM webhook_endpoints e JOIN tokens t ON t.id = e.token_id
       WHERE e.network = $1 AND e.ended_at IS NULL AND t.revoked_at IS NULL
         AND (t.expires_at IS NULL OR t.expires_at > now())
     ) x`,
    [network],
  );
  return (rows[0]?.endpoints ?? []).flatMap((r) => {
    const owner = ownerOfColumns({
      ...r,
      owner_expires_at: r.owner_expires_at === null ? null : new Date(r.owner_expires_at),
    });
    return owner ? [{ ...endpointOf(r), secret: r.secret, owner }] : [];
  });
}

/** A live endpoint's row as JSON gives it: its times as text. */
type LiveRow = EndpointRow &
  Omit<OwnerColumns, "owner_expires_at"> & { owner_expires_at: string | null; secret: string };

/** The endpoint's token's owner, as a join reads it (`tokens t`). */
interface OwnerColumns {
  owner_id: number | null;
  owner_account_id: number;
  owner_hint: string;
  owner_scope: OwnerRow["scope"];
  owner_expires_at: Date | null;
}
const OWNER_COLUMNS = `t.id AS owner_id, t.account_id AS owner_account_id, t.hint AS owner_hint,
       t.scope AS owner_scope, t.expires_at AS owner_expires_at`;

function ownerOfColumns(r: OwnerColumns): TokenOwner | null {
  return r.owner_id === null
    ? null
    : ownerOf({
        id: r.owner_id,
        account_id: r.owner_account_id,
        hint: r.owner_hint,
        scope: r.owner_scope,
        expires_at: r.owner_expires_at,
      });
}

/** Ends a live endpoint (of `accountId`, when given); whether it was live. */
export async function endEndpoint(
  db: Queryable,
  id: number,
  why: string,
  accountId?: number,
): Promise<boolean> {
  const { rows } = await db.query(
    `UPDATE webhook_endpoints SET ended_at = now(), ended_why = $2
     WHERE id = $1 AND ended_at IS NULL AND ($3::bigint IS NULL OR account_id = $3) RETURNING id`,
    [id, why, accountId ?? null],
  );
  return rows.length > 0;
}

/** Why an endpoint whose source told its last message ended: that message is still sent. */
export const COMPLETED = "completed";

/** Ends the live endpoints of `ids` in one statement (the dispatcher's, the delivery's). */
export async function endEndpoints(db: Queryable, ids: readonly number[], why: string) {
  if (ids.length === 0) return;
  await db.query(
    `UPDATE webhook_endpoints SET ended_at = now(), ended_why = $2
     WHERE id = ANY($1::int8[]) AND ended_at IS NULL`,
    [ids, why],
  );
}

/** A message to write: its id, its endpoint, the event it tells of and its body. */
export interface NewMessage {
  id: string;
  endpointId: number;
  eventId: string;
  payload: string;
}

/**
 * Writes messages in one statement; those written (an endpoint that has a message for the event
 * already gets none), each id with its creation time.
 */
export async function createMessages(
  db: Queryable,
  messages: readonly NewMessage[],
): Promise<Map<string, Date>> {
  if (messages.length === 0) return new Map();
  const { rows } = await db.query<{ id: string; created_at: Date }>(
    `INSERT INTO webhook_messages(id, endpoint_id, event_id, payload)
     SELECT * FROM unnest($1::text[], $2::int8[], $3::text[], $4::text[])
     ON CONFLICT (endpoint_id, event_id) DO NOTHING RETURNING id, created_at`,
    [
      messages.map((m) => m.id),
      messages.map((m) => m.endpointId),
      messages.map((m) => m.eventId),
      messages.map((m) => m.payload),
    ],
  );
  return new Map(rows.map((r) => [r.id, new Date(r.created_at)]));
}

/** A message due for an attempt, with what sending it needs. */
export interface Pending {
  id: string;
  payload: string;
  createdAt: Date;
  attempts: number;
  status: "pending" | "delivered" | "failed";
  endpoint: Endpoint;
  secret: string;
  /** The endpoint's token's owner; null when the token is revoked or expired. */
  owner: TokenOwner | null;
}

/** The messages of `ids` that exist, each with its endpoint and its token's owner: one read. */
export async function pendingMessages(
  db: Queryable,
  ids: readonly string[],
): Promise<Map<string, Pending>> {
  const { rows } = await db.query<
    EndpointRow &
      OwnerColumns & {
        message_id: string;
        payload: string;
        message_created_at: Date;
        attempts: number;
        status: Pending["status"];
        secret: string;
      }
  >(
    `SELECT m.id AS message_id, m.payload, m.created_at AS message_created_at, m.attempts, m.status,
            e.secret, ${E_COLUMNS}, ${OWNER_COLUMNS}
     FROM webhook_messages m JOIN webhook_endpoints e ON e.id = m.endpoint_id
     LEFT JOIN tokens t ON t.id = e.token_id AND t.revoked_at IS NULL
       AND (t.expires_at IS NULL OR t.expires_at > now())
     WHERE m.id = ANY($1::text[])`,
    [ids],
  );
  const out = new Map<string, Pending>();
  for (const r of rows) {
    const owner = ownerOfColumns(r);
    out.set(r.message_id, {
      id: r.message_id,
      payload: r.payload,
      createdAt: new Date(r.message_created_at),
      attempts: Number(r.attempts),
      status: r.status,
      endpoint: endpointOf(r),
      secret: r.secret,
      owner,
    });
  }
  return out;
}

export type AttemptResult = "delivered" | "retry" | "failed" | "refused";

/** One attempt at a message, as it is recorded. */
export interface AttemptRecord {
  messageId: string;
  httpStatus: number | null;
  error: string | null;
  latencyMs: number;
  result: AttemptResult;
  /** The message is over (failed, or refused for good). */
  final?: boolean;
  auditId?: number | null;
  /** The charge mark the attempt opened (charge-mark.ts), dropped with the record. */
  mark?: { accountId: number; key: string } | null;
}

/** The result an attempt is stored with: `failed` for the last of a message not delivered. */
export function storedResult(a: AttemptRecord): AttemptResult {
  return a.final && a.result !== "delivered" ? "failed" : a.result;
}

/**
 * Records attempts and what they made of their messages, in one statement: each message's count
 * and status (delivered or failed when the attempt says so; a `retry` or `refused` leaves it
 * pending), each attempt's row under that count, and the charge marks the attempts opened, which
 * the message's status says from then on. One statement, so a mark never outlives its record nor
 * goes before it. A message appears once.
 */
export async function recordAttempts(
  db: Queryable,
  attempts: readonly AttemptRecord[],
): Promise<void> {
  if (attempts.length === 0) return;
  const rows = attempts.map((a) => [
    a.messageId,
    a.result === "delivered" ? "delivered" : a.final ? "failed" : "pending",
    a.auditId ?? null,
    a.httpStatus,
    a.error,
    a.latencyMs,
    storedResult(a),
    a.mark?.accountId ?? null,
    a.mark?.key ?? null,
  ]);
  await db.query(
    `WITH a AS (
       SELECT e->>0 AS message_id, e->>1 AS status, (e->>2)::int8 AS audit_id,
         (e->>3)::int AS http_status, e->>4 AS error, (e->>5)::int AS latency_ms, e->>6 AS result,
         (e->>7)::int8 AS mark_account, e->>8 AS mark_key
       FROM jsonb_array_elements($1::jsonb) e
     ), m AS (
       UPDATE webhook_messages w SET attempts = w.attempts + 1, status = a.status,
         finished_at = CASE WHEN a.status = 'pending' THEN NULL ELSE now() END,
         audit_id = COALESCE(a.audit_id, w.audit_id)
       FROM a WHERE w.id = a.message_id
       RETURNING w.id, w.attempts
     ), logged AS (
       INSERT INTO webhook_attempts(message_id, attempt, http_status, error, latency_ms, result)
       SELECT m.id, m.attempts, a.http_status, a.error, a.latency_ms, a.result
       FROM m JOIN a ON a.message_id = m.id
       RETURNING 1
     ), closed AS (
       DELETE FROM idempotency_keys k USING a
       WHERE a.mark_key IS NOT NULL AND k.account_id = a.mark_account AND k.key = a.mark_key
       RETURNING 1
     )
     SELECT (SELECT count(*) FROM logged) AS logged, (SELECT count(*) FROM closed) AS closed`,
    [JSON.stringify(rows)],
  );
}

export interface AttemptRow {
  messageId: string;
  eventId: string;
  attempt: number;
  at: Date;
  httpStatus: number | null;
  error: string | null;
  latencyMs: number;
  result: AttemptResult;
}

/** An endpoint's latest attempts, newest first. */
export async function recentAttempts(
  db: Queryable,
  endpointId: number,
  limit = 50,
): Promise<AttemptRow[]> {
  const { rows } = await db.query<{
    message_id: string;
    event_id: string;
    attempt: number;
    at: Date;
    http_status: number | null;
    error: string | null;
    latency_ms: number;
    result: AttemptResult;
  }>(
    `SELECT a.message_id, m.event_id, a.attempt, a.at, a.http_status, a.error, a.latency_ms, a.result
     FROM webhook_attempts a JOIN webhook_messages m ON m.id = a.message_id
     WHERE m.endpoint_id = $1 ORDER BY a.id DESC LIMIT $2`,
    [endpointId, limit],
  );
  return rows.map((r) => ({
    messageId: r.message_id,
    eventId: r.event_id,
    attempt: Number(r.attempt),
    at: new Date(r.at),
    httpStatus: r.http_status === null ? null : Number(r.http_status),
    error: r.error,
    latencyMs: Number(r.latency_ms),
    result: r.result,
  }));
}
