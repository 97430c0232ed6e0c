import type { Queryable } from "../../db/database.ts";

export type Outcome =
  | "ok"
  | "upstream_error"
  | "rejected"
  | "insufficient_credits"
  | "unauthenticated"
  /** Outside the token's scope (backend, network, method, origin, address): 403, not charged. */
  | "forbidden"
  /** Over the plan's request rate or calls in flight: aggregated like failed logins. */
  | "rate_limited"
  /** Over the plan's credit cap per day or cycle: refused before reserving, nothing charged. */
  | "credit_cap"
  | "upstream_failure"
  /**
   * The upstream answered, but the whole answer was over server.responseBytesMax: not passed on,
   * charged as answered (the upstream did the work); RESPONSE_TOO_LARGE.
   */
  | "too_large"
  /** An `x-dry-run` request: estimated, not executed; not an error, so no error code. */
  | "dry_run"
  /** A retry answered with the stored answer of its Idempotency-Key: not charged again. */
  | "replayed";

/** One call as the audit log keeps it. Tokens appear only as their id, never in clear. */
export interface AuditInput {
  requestId: string;
  accountId: number | null;
  tokenId: number | null;
  backend: string;
  network: string;
  method: string;
  outcome: Outcome;
  /** A code of the closed list (src/protocol/errors/codes.ts), never an upstream's. */
  errorCode?: string | null;
  /** The upstream's native code (Core's -5, Hasura's `validation-failed`), or the one the
   * gateway answered with when it refused a call as the upstream would (-32601, -8). */
  upstreamCode?: string | null;
  httpStatus: number;
  estimatedCc: number;
  chargedCc: number;
  complexity?: number | null;
  upstream?: string | null;
  durationMs?: number | null;
  /** How many calls the record stands for: 1, except aggregated failed authentications. */
  calls?: number;
  /** The client's address: kept for aggregated failed authentications only. */
  source?: string | null;
  /** Calls of the record answered from the response cache (charged as misses). */
  cacheHits?: number;
}

/** Most characters of a client-supplied name (a method) an audit record keeps. */
const NAME_CHARS_MAX = 64;

/**
 * Client-supplied text as the audit log can hold it: PostgreSQL refuses U+0000 in a text column
 * (a whole settle would fail on it), and other control characters would garble the dashboard, a
 * terminal or a CSV, so they are written as `\uXXXX`; lone surrogates become U+FFFD. Then cut.
 */
export function storableText(text: string, charsMax = NAME_CHARS_MAX): string {
  const clean = text
    .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD")
    .replace(
      // biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
      /[\u0000-\u001f\u007f-\u009f]/g,
      (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
    );
  return clean.length > charsMax ? clean.slice(0, charsMax) : clean;
}

/**
 * A record's columns as the statements that write records take them (insertAudit here, and the
 * batch statements through auditColumnsFromJson): request_id, token_id, backend, network, method, outcome,
 * error_code, http_status, estimated_cc, charged_cc, complexity, upstream, duration_ms,
 * upstream_code, cache_hits; every text that may come from a client made storable (storableText),
 * absent values null.
 */
export function auditColumns(r: AuditInput): unknown[] {
  return [
    r.requestId,
    r.tokenId ?? null,
    r.backend,
    r.network,
    storableText(r.method),
    r.outcome,
    r.errorCode == null ? null : storableText(r.errorCode),
    r.httpStatus,
    r.estimatedCc,
    r.chargedCc,
    r.complexity ?? null,
    r.upstream == null ? null : storableText(r.upstream, 200),
    r.durationMs ?? null,
    r.upstreamCode == null ? null : storableText(r.upstreamCode),
    r.cacheHits ?? 0,
  ];
}

/** auditColumns' names, in its order, with the types a JSON row's text is cast to. */
const AUDIT_COLUMN_TYPES: readonly [name: string, cast: string][] = [
  ["request_id", ""],
  ["token_id", "int8"],
  ["backend", ""],
  ["network", ""],
  ["method", ""],
  ["outcome", ""],
  ["error_code", ""],
  ["http_status", "int"],
  ["estimated_cc", "int8"],
  ["charged_cc", "int8"],
  ["complexity", "int"],
  ["upstream", ""],
  ["duration_ms", "int"],
  ["upstream_code", ""],
  ["cache_hits", "int"],
];

/**
 * SQL reading auditColumns back from a JSON array `e`, its first column at position `first`: the
 * select list of the statements that write records in batches (the settle, direct charges).
 */
export function auditColumnsFromJson(first: number): string {
  return AUDIT_COLUMN_TYPES.map(([name, cast], k) =>
    cast ? `(e->>${first + k})::${cast} AS ${name}` : `e->>${first + k} AS ${name}`,
  ).join(", ");
}

/** Inserts the records of a batch statement's `recs` (id, account_id, then auditColumns' names). */
export const INSERT_RECS = (() => {
  const names = ["id", "account_id", ...AUDIT_COLUMN_TYPES.map(([name]) => name)];
  return `INSERT INTO audit_records(${names.join(", ")})
       SELECT ${names.map((n) => `r.${n}`).join(", ")} FROM recs r
       RETURNING 1`;
})();

export async function insertAudit(db: Queryable, r: AuditInput): Promise<number> {
  const { rows } = await db.query<{ id: number }>(
    `INSERT INTO audit_records(request_id, token_id, backend, network, method, outcome, error_code,
       http_status, estimated_cc, charged_cc, complexity, upstream, duration_ms, upstream_code,
       cache_hits, account_id, calls, source)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)
     RETURNING id`,
    [
      ...auditColumns(r),
      r.accountId,
      r.calls ?? 1,
      r.source == null ? null : storableText(r.source),
    ],
  );
  return rows[0]!.id;
}
