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
  created_at: Date;
  ended_at: Date | null;
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

/** The live endpoints following `network` whose token is live (the dispatcher's list). */
export async function liveEndpoints(db: Queryable, network: NetworkName): Promise<Endpoint[]> {
  // An endpoint whose token is revoked or expired gets no more messages (its next attempt, if
  // one is queued, ends it).
  const { rows } = await db.query<EndpointRow>(
    `SELECT ${E_COLUMNS}
     FROM webhook_endpoints e JOIN tokens t ON t.id = e.token_id
     WHERE e.network = $1 AND e.ended_at IS NULL AND t.revoked_at IS NULL
       AND (t.expires_at IS NULL OR t.expires_at > now())
     ORDER BY e.id`,
    [network],
  );
  return rows.map(endpointOf);
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

/** One message to an endpoint; null when that endpoint already has one for the event. */
export async function createMessage(
  db: Queryable,
  m: { id: string; endpointId: number; eventId: string; payload: string },
): Promise<boolean> {
  const { rows } = await db.query(
    `INSERT INTO webhook_messages(id, endpoint_id, event_id, payload) VALUES ($1, $2, $3, $4)
     ON CONFLICT (endpoint_id, event_id) DO NOTHING RETURNING id`,
    [m.id, m.endpointId, m.eventId, m.payload],
  );
  return rows.length > 0;
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
}

export async function pendingMessage(db: Queryable, id: string): Promise<Pending | null> {
  const { rows } = await db.query<
    EndpointRow & {
      message_id: string;
      payload: string;
      message_created_at: Date;
      attempts: number;
      status: Pending["status"];
      secret: string;
    }
  >(
    `SELECT m.id AS message_id, m.payload, m.created_at AS message_created_at, m.attempts, m.status,
            e.secret, ${E_COLUMNS}
     FROM webhook_messages m JOIN webhook_endpoints e ON e.id = m.endpoint_id WHERE m.id = $1`,
    [id],
  );
  const r = rows[0];
  if (!r) return null;
  return {
    id: r.message_id,
    payload: r.payload,
    createdAt: new Date(r.message_created_at),
    attempts: Number(r.attempts),
    status: r.status,
    endpoint: endpointOf(r),
    secret: r.secret,
  };
}

export type AttemptResult = "delivered" | "retry" | "failed" | "refused";

/**
 * Records an attempt and what it made of its message: one more attempt counted, and the message
 * delivered or failed when the attempt says so (a `retry` or `refused` leaves it pending).
 * Returns the attempt's result as stored: `failed` for the last of a message that was not
 * delivered.
 */
export async function recordAttempt(
  db: Queryable,
  a: {
    messageId: string;
    httpStatus: number | null;
    error: string | null;
    latencyMs: number;
    result: AttemptResult;
    /** The message is over (failed, or refused for good). */
    final?: boolean;
    auditId?: number | null;
  },
): Promise<AttemptResult> {
  const result: AttemptResult = a.final && a.result !== "delivered" ? "failed" : a.result;
  const status = a.result === "delivered" ? "delivered" : a.final ? "failed" : "pending";
  // One statement: the message's count and status, and the attempt's row under that count.
  await db.query(
    `WITH m AS (
       UPDATE webhook_messages SET attempts = attempts + 1, status = $2,
         finished_at = CASE WHEN $2 = 'pending' THEN NULL ELSE now() END,
         audit_id = COALESCE($3, audit_id)
       WHERE id = $1 RETURNING id, attempts
     )
     INSERT INTO webhook_attempts(message_id, attempt, http_status, error, latency_ms, result)
     SELECT m.id, m.attempts, $4, $5, $6, $7 FROM m`,
    [a.messageId, status, a.auditId ?? null, a.httpStatus, a.error, a.latencyMs, result],
  );
  return result;
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
