import type { Database } from "../../src/db/database.ts";

/** An audit record as tests read it (bigint columns come back as numbers: see db/). */
export interface AuditRow {
  id: number;
  request_id: string;
  account_id: number | null;
  token_id: number | null;
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
  upstream: string | null;
  duration_ms: number | null;
  calls: number;
  cache_hits: number;
}

export type AuditColumn = keyof AuditRow;

/** Which records: an account's, a request's, of one outcome or method (all given must hold). */
export interface AuditWhere {
  accountId?: number;
  /** null matches nothing, as `= NULL` would (a missing x-request-id header). */
  requestId?: string | null;
  outcome?: string;
  method?: string;
}

const COLUMNS: Record<keyof AuditWhere, string> = {
  accountId: "account_id",
  requestId: "request_id",
  outcome: "outcome",
  method: "method",
};

function whereClause(where: AuditWhere): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const terms: string[] = [];
  for (const [key, column] of Object.entries(COLUMNS) as [keyof AuditWhere, string][]) {
    const value = where[key];
    if (value === undefined) continue;
    if (value === null) {
      terms.push(`${column} IS NULL`);
      continue;
    }
    params.push(value);
    terms.push(`${column} = $${params.length}`);
  }
  return { sql: terms.length > 0 ? `WHERE ${terms.join(" AND ")}` : "", params };
}

/**
 * Audit records with the columns asked, oldest first (`newestFirst`: the latest first; `limit`:
 * that many). The one place tests read audit_records row by row.
 */
export async function auditRecords<C extends AuditColumn>(
  db: Database,
  where: AuditWhere,
  columns: readonly C[],
  opts: { newestFirst?: boolean; limit?: number } = {},
): Promise<Pick<AuditRow, C>[]> {
  const { sql, params } = whereClause(where);
  const order = opts.newestFirst ? "DESC" : "";
  const limit = opts.limit === undefined ? "" : ` LIMIT ${Math.floor(opts.limit)}`;
  const { rows } = await db.query<Pick<AuditRow, C>>(
    `SELECT ${columns.join(", ")} FROM audit_records ${sql} ORDER BY id ${order}${limit}`,
    params,
  );
  return rows;
}

/** Audit records counted and their charges summed by outcome, outcomes in order. */
export async function auditByOutcome(
  db: Database,
  where: AuditWhere,
): Promise<{ outcome: string; n: number; charged: number }[]> {
  const { sql, params } = whereClause(where);
  const { rows } = await db.query<{ outcome: string; n: number; charged: number }>(
    `SELECT outcome, count(*)::int AS n, sum(charged_cc)::int AS charged FROM audit_records
     ${sql} GROUP BY outcome ORDER BY outcome`,
    params,
  );
  return rows;
}

/** How many audit records match. */
export async function auditCount(db: Database, where: AuditWhere): Promise<number> {
  const { sql, params } = whereClause(where);
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM audit_records ${sql}`,
    params,
  );
  return rows[0]!.n;
}
