import type { Queryable } from "../db/database.ts";

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
  /** A code of the closed list (src/errors/codes.ts), never an upstream's. */
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

/** A record with every text that may come from a client made storable (see storableText). */
export function storableAudit(r: AuditInput): AuditInput {
  return {
    ...r,
    method: storableText(r.method),
    errorCode: r.errorCode == null ? null : storableText(r.errorCode),
    upstreamCode: r.upstreamCode == null ? null : storableText(r.upstreamCode),
    upstream: r.upstream == null ? null : storableText(r.upstream, 200),
  };
}

export async function insertAudit(db: Queryable, record: AuditInput): Promise<number> {
  const r = storableAudit(record);
  const { rows } = await db.query<{ id: number }>(
    `INSERT INTO audit_records(request_id, account_id, token_id, backend, network, method, outcome,
       error_code, http_status, estimated_cc, charged_cc, complexity, upstream, duration_ms,
       upstream_code, calls, source, cache_hits)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)
     RETURNING id`,
    [
      r.requestId,
      r.accountId,
      r.tokenId,
      r.backend,
      r.network,
      r.method,
      r.outcome,
      r.errorCode ?? null,
      r.httpStatus,
      r.estimatedCc,
      r.chargedCc,
      r.complexity ?? null,
      r.upstream ?? null,
      r.durationMs ?? null,
      r.upstreamCode ?? null,
      r.calls ?? 1,
      r.source == null ? null : storableText(r.source),
      r.cacheHits ?? 0,
    ],
  );
  return rows[0]!.id;
}
