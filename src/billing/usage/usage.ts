import type { Queryable } from "../../db/database.ts";

/** A half-open time range [start, end). */
export interface Range {
  start: Date;
  end: Date;
}

export interface UsageRow {
  backend: string;
  network: string;
  method: string;
  calls: number;
  /** Of the calls, those refused before anything ran (REFUSED_OUTCOMES): never charged. */
  refused: number;
  charged: number;
}

/**
 * Outcomes of calls refused before execution — a bad envelope or parameters, an unknown method, a
 * bad token, a scope, a plan's limit, credits short — apart from calls that ran (and were billed,
 * or failed upstream uncharged), so a dashboard can show "refused" apart from "billed".
 */
export const REFUSED_OUTCOMES = [
  "rejected",
  "unauthenticated",
  "forbidden",
  "rate_limited",
  "credit_cap",
  "insufficient_credits",
] as const;

const inList = (outcomes: readonly string[]) => outcomes.map((o) => `'${o}'`).join(", ");
export const REFUSED_SQL = `outcome IN (${inList(REFUSED_OUTCOMES)})`;

/** Outcomes of calls that ran and failed: the upstream's error, no upstream, too large an answer. */
export const FAILED_OUTCOMES = ["upstream_error", "upstream_failure", "too_large"] as const;
export const FAILED_SQL = `outcome IN (${inList(FAILED_OUTCOMES)})`;

export interface DayUsage {
  /** YYYY-MM-DD, UTC. */
  day: string;
  calls: number;
  /** Of the calls, those refused before anything ran: never charged. */
  refused: number;
  charged: number;
}

export interface OutcomeUsage {
  outcome: string;
  httpStatus: number;
  calls: number;
  charged: number;
}

const IN_RANGE = "($2::timestamptz IS NULL OR at >= $2) AND ($3::timestamptz IS NULL OR at < $3)";
/**
 * The dashboard's own reads of the account (audited, free, `backend` = its segment) are the
 * owner looking, not calls: left out of usage and the latest calls, kept in the audit export.
 */
export const CALLS = `${IN_RANGE} AND backend <> 'dashboard'`;
export const rangeParams = (accountId: number, range?: Range) => [
  accountId,
  range?.start ?? null,
  range?.end ?? null,
];

/**
 * Credits charged to an account since an instant, dashboard reads included (they are free): what
 * the plans' credit caps count, and what the dashboard shows against them.
 */
export async function chargedSince(db: Queryable, accountId: number, since: Date): Promise<number> {
  const { rows } = await db.query<{ spent: string }>(
    "SELECT coalesce(sum(charged_cc), 0)::text AS spent FROM audit_records WHERE account_id = $1 AND at >= $2",
    [accountId, since],
  );
  return Number(rows[0]?.spent ?? 0);
}

/** Calls and credits by backend, network and method, from the audit log. */
export async function usageByMethod(
  db: Queryable,
  accountId: number,
  range?: Range,
): Promise<UsageRow[]> {
  const { rows } = await db.query<UsageRow>(
    `SELECT backend, network, method, sum(calls)::int8 AS calls,
       coalesce(sum(calls) FILTER (WHERE ${REFUSED_SQL}), 0)::int8 AS refused,
       sum(charged_cc)::int8 AS charged
     FROM audit_records WHERE account_id = $1 AND ${CALLS}
     GROUP BY backend, network, method ORDER BY backend, network, method`,
    rangeParams(accountId, range),
  );
  return rows;
}

/** Calls and credits per UTC day. */
export async function usageByDay(
  db: Queryable,
  accountId: number,
  range?: Range,
): Promise<DayUsage[]> {
  const { rows } = await db.query<DayUsage>(
    `SELECT to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, sum(calls)::int8 AS calls,
       coalesce(sum(calls) FILTER (WHERE ${REFUSED_SQL}), 0)::int8 AS refused,
       sum(charged_cc)::int8 AS charged
     FROM audit_records WHERE account_id = $1 AND ${CALLS} GROUP BY 1 ORDER BY 1`,
    rangeParams(accountId, range),
  );
  return rows;
}

/** Calls and credits by outcome and HTTP status. */
export async function usageByOutcome(
  db: Queryable,
  accountId: number,
  range?: Range,
): Promise<OutcomeUsage[]> {
  const { rows } = await db.query<OutcomeUsage>(
    `SELECT outcome, http_status AS "httpStatus", sum(calls)::int8 AS calls, sum(charged_cc)::int8 AS charged
     FROM audit_records WHERE account_id = $1 AND ${CALLS} GROUP BY 1, 2 ORDER BY 1, 2`,
    rangeParams(accountId, range),
  );
  return rows;
}

/** Audit records in a range, newest first (at most `limit`); `all`: the dashboard's reads too. */
export async function auditInRange(
  db: Queryable,
  accountId: number,
  range: Range | undefined,
  limit: number,
  all = false,
): Promise<AuditRow[]> {
  const { rows } = await db.query<AuditRow>(
    `SELECT id, at, request_id, account_id, backend, network, method, outcome, error_code,
       upstream_code, http_status, estimated_cc, charged_cc, complexity, duration_ms
     FROM audit_records WHERE account_id = $1 AND ${all ? IN_RANGE : CALLS}
     ORDER BY id DESC LIMIT $4`,
    [...rangeParams(accountId, range), limit],
  );
  return rows;
}

export interface AuditRow {
  id: number;
  at: Date;
  request_id: string;
  account_id: number | null;
  backend: string;
  network: string;
  method: string;
  outcome: string;
  error_code: string | null;
  upstream_code: string | null;
  http_status: number;
  estimated_cc: number;
  charged_cc: number;
  complexity: number | null;
  duration_ms: number | null;
}

export async function latestAudit(
  db: Queryable,
  accountId: number,
  limit: number,
): Promise<AuditRow[]> {
  return auditInRange(db, accountId, undefined, limit);
}
