import type { Database } from "../../src/db/database.ts";

/**
 * The one place tests read and stage audit_records. Tests of the table's own guards (its
 * triggers, test/ledger/ledger.test.ts) name it themselves.
 */

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
  /** The client's address, on aggregated failed authentications. */
  source: string | null;
}

export type AuditColumn = keyof AuditRow;

/** Which records (all given must hold); null is `IS NULL`. */
export interface AuditWhere {
  accountId?: number | null;
  /** The account of that name (one a browser session made, say, whose id is not at hand). */
  accountName?: string;
  /** null matches nothing, as `= NULL` would (a missing x-request-id header). */
  requestId?: string | null;
  backend?: string;
  outcome?: string;
  method?: string;
  errorCode?: string | null;
  upstreamCode?: string | null;
  chargedCc?: number;
  /** Written more than this many days ago. */
  olderThanDays?: number;
}

/** Each condition, given the placeholder of its value. */
const TERMS: Record<keyof AuditWhere, (value: string) => string> = {
  accountId: (v) => `account_id = ${v}`,
  accountName: (v) => `account_id IN (SELECT id FROM accounts WHERE name = ${v})`,
  requestId: (v) => `request_id = ${v}`,
  backend: (v) => `backend = ${v}`,
  outcome: (v) => `outcome = ${v}`,
  method: (v) => `method = ${v}`,
  errorCode: (v) => `error_code = ${v}`,
  upstreamCode: (v) => `upstream_code = ${v}`,
  chargedCc: (v) => `charged_cc = ${v}`,
  olderThanDays: (v) => `at < now() - ${v} * interval '1 day'`,
};
const NULLABLE: Partial<Record<keyof AuditWhere, string>> = {
  accountId: "account_id IS NULL",
  requestId: "false",
  errorCode: "error_code IS NULL",
  upstreamCode: "upstream_code IS NULL",
};

function whereClause(where: AuditWhere): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const terms: string[] = [];
  for (const key of Object.keys(TERMS) as (keyof AuditWhere)[]) {
    const value = where[key];
    if (value === undefined) continue;
    if (value === null) {
      terms.push(NULLABLE[key]!);
      continue;
    }
    params.push(value);
    terms.push(TERMS[key](`$${params.length}`));
  }
  return { sql: terms.length > 0 ? `WHERE ${terms.join(" AND ")}` : "", params };
}

/**
 * Audit records with the columns asked, oldest first, or in `orderBy`'s order (`newestFirst`: the
 * latest first; `limit`: that many).
 */
export async function auditRecords<C extends AuditColumn>(
  db: Database,
  where: AuditWhere,
  columns: readonly C[],
  opts: { newestFirst?: boolean; limit?: number; orderBy?: readonly AuditColumn[] } = {},
): Promise<Pick<AuditRow, C>[]> {
  const { sql, params } = whereClause(where);
  const order = [...(opts.orderBy ?? []), `id${opts.newestFirst ? " DESC" : ""}`].join(", ");
  const limit = opts.limit === undefined ? "" : ` LIMIT ${Math.floor(opts.limit)}`;
  const { rows } = await db.query<Pick<AuditRow, C>>(
    `SELECT ${columns.join(", ")} FROM audit_records ${sql} ORDER BY ${order}${limit}`,
    params,
  );
  return rows;
}

/** The audit records of one request, found by the x-request-id it was answered with. */
export function auditOf<C extends AuditColumn>(
  db: Database,
  requestId: string | null,
  columns: readonly C[],
) {
  return auditRecords(db, { requestId }, columns);
}

/** What a set of records comes to: how many, their charges, calls, cache hits and requests. */
export interface AuditMeasures {
  n: number;
  charged: number;
  calls: number;
  cacheHits: number;
  /** Distinct request ids. */
  requests: number;
}

const MEASURES: Record<keyof AuditMeasures, string> = {
  n: "count(*)::int",
  charged: "coalesce(sum(charged_cc), 0)::int",
  calls: "coalesce(sum(calls), 0)::int",
  cacheHits: "coalesce(sum(cache_hits), 0)::int",
  requests: "count(DISTINCT request_id)::int",
};

const select = (measures: readonly (keyof AuditMeasures)[]) =>
  measures.map((m) => `${MEASURES[m]} AS "${m}"`).join(", ");

/** The measures asked of the records that match. */
export async function auditTotals<M extends keyof AuditMeasures>(
  db: Database,
  where: AuditWhere,
  measures: readonly M[],
): Promise<Pick<AuditMeasures, M>> {
  const { sql, params } = whereClause(where);
  const { rows } = await db.query<Pick<AuditMeasures, M>>(
    `SELECT ${select(measures)} FROM audit_records ${sql}`,
    params,
  );
  return rows[0]!;
}

/** The measures asked of the records that match, per value of `by`, in that column's order. */
export async function auditGrouped<K extends AuditColumn, M extends keyof AuditMeasures>(
  db: Database,
  where: AuditWhere,
  by: K,
  measures: readonly M[],
): Promise<(Pick<AuditRow, K> & Pick<AuditMeasures, M>)[]> {
  const { sql, params } = whereClause(where);
  const { rows } = await db.query<Pick<AuditRow, K> & Pick<AuditMeasures, M>>(
    `SELECT ${by}, ${select(measures)} FROM audit_records ${sql} GROUP BY ${by} ORDER BY ${by}`,
    params,
  );
  return rows;
}

/** Audit records counted and their charges summed by outcome, outcomes in order. */
export function auditByOutcome(db: Database, where: AuditWhere) {
  return auditGrouped(db, where, "outcome", ["n", "charged"]);
}

/** How many audit records match. */
export async function auditCount(db: Database, where: AuditWhere): Promise<number> {
  return (await auditTotals(db, where, ["n"])).n;
}

/** An account's audit records, oldest first: method, charge and outcome. */
export function auditRows(db: Database, accountId: number) {
  return auditRecords(db, { accountId }, ["method", "charged_cc", "outcome"]);
}

/**
 * The latest aggregated failed-authentication record of a route (src/access/auth-failures.ts),
 * written now rather than when its minute is over: a 401 has no record of its own.
 */
export async function latestAuthFailure(
  t: { gateway: { app: { db: Database; authFailures: { flush(now: boolean): Promise<void> } } } },
  backend: string,
) {
  await t.gateway.app.authFailures.flush(true);
  return auditRecords(
    t.gateway.app.db,
    { outcome: "unauthenticated", backend },
    [
      "account_id",
      "token_id",
      "backend",
      "network",
      "method",
      "outcome",
      "error_code",
      "http_status",
      "estimated_cc",
      "charged_cc",
      "calls",
    ],
    { newestFirst: true, limit: 1 },
  );
}

/** Moves an account's audit records `days` into the past (an earlier billing cycle's calls). */
export async function backdateAudit(db: Database, accountId: number, days: number) {
  await db.query("UPDATE audit_records SET at = at - $2 * interval '1 day' WHERE account_id = $1", [
    accountId,
    days,
  ]);
}

/** Records of calls refused before they ran, written as the pipeline would (CLI listings). */
export async function insertAuditRecords(
  db: Database,
  rows: Pick<
    AuditRow,
    | "request_id"
    | "account_id"
    | "backend"
    | "network"
    | "method"
    | "outcome"
    | "error_code"
    | "http_status"
  >[],
) {
  for (const r of rows) {
    await db.query(
      `INSERT INTO audit_records (request_id, account_id, backend, network, method, outcome,
         error_code, http_status) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        r.request_id,
        r.account_id,
        r.backend,
        r.network,
        r.method,
        r.outcome,
        r.error_code,
        r.http_status,
      ],
    );
  }
}

/**
 * A real database fault: every audit record of the account is refused (a settle fails) until
 * the returned function lifts it.
 */
export async function refuseAuditOf(db: Database, accountId: number): Promise<() => Promise<void>> {
  await db.exec(`CREATE OR REPLACE FUNCTION refuse_audit() RETURNS trigger AS $$
    BEGIN RAISE EXCEPTION 'audit refused for this test'; END $$ LANGUAGE plpgsql`);
  await db.exec(`CREATE TRIGGER refuse_audit_${accountId} BEFORE INSERT ON audit_records
    FOR EACH ROW WHEN (NEW.account_id = ${accountId}) EXECUTE FUNCTION refuse_audit()`);
  return () => db.exec(`DROP TRIGGER refuse_audit_${accountId} ON audit_records`);
}

/**
 * Locks a PostgreSQL schema's audit records on `client`, in a transaction it begins: every
 * settle then waits (a charge writes its record in the statement that commits it) until COMMIT.
 */
export async function lockAudit(
  client: { query(sql: string): Promise<unknown> },
  schema: string,
): Promise<void> {
  await client.query("BEGIN");
  await client.query(`LOCK TABLE ${schema}.audit_records IN EXCLUSIVE MODE`);
}
