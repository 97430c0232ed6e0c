import type { Queryable } from "../../db/database.ts";
import { CALLS, FAILED_SQL, type Range, REFUSED_SQL, rangeParams } from "./usage.ts";

export type BucketSize = "hour" | "day";

/** One hour or UTC day of an account's calls. */
export interface UsageBucket {
  start: Date;
  calls: number;
  /** Refused before anything ran: never charged. */
  refused: number;
  /** Ran and failed: the upstream's error, no upstream, or an answer over the size limit. */
  failed: number;
  charged: number;
  /** Latency of the calls that ran, in milliseconds; null when none ran. */
  p50: number | null;
  p95: number | null;
  p99: number | null;
}

export interface TimelineFilter {
  bucket: BucketSize;
  network?: string | null;
  method?: string | null;
}

/**
 * Calls, credits and latency per hour or UTC day of a range, optionally of one network and one
 * method; buckets without calls are absent. Latency percentiles leave refused calls out: they
 * never reached an upstream and would pull every percentile towards zero.
 */
export async function usageTimeline(
  db: Queryable,
  accountId: number,
  range: Range,
  filter: TimelineFilter,
): Promise<UsageBucket[]> {
  const ran = `duration_ms IS NOT NULL AND NOT (${REFUSED_SQL})`;
  const { rows } = await db.query<{
    start: Date;
    calls: number;
    refused: number;
    failed: number;
    charged: number;
    latency: (number | null)[] | null;
  }>(
    `SELECT date_trunc($4, at, 'UTC') AS start, sum(calls)::int8 AS calls,
       coalesce(sum(calls) FILTER (WHERE ${REFUSED_SQL}), 0)::int8 AS refused,
       coalesce(sum(calls) FILTER (WHERE ${FAILED_SQL}), 0)::int8 AS failed,
       sum(charged_cc)::int8 AS charged,
       percentile_cont(ARRAY[0.5, 0.95, 0.99]::float8[]) WITHIN GROUP (ORDER BY duration_ms)
         FILTER (WHERE ${ran}) AS latency
     FROM audit_records
     WHERE account_id = $1 AND ${CALLS}
       AND ($5::text IS NULL OR network = $5) AND ($6::text IS NULL OR method = $6)
     GROUP BY 1 ORDER BY 1`,
    [
      ...rangeParams(accountId, range),
      filter.bucket,
      filter.network ?? null,
      filter.method ?? null,
    ],
  );
  return rows.map(({ latency, ...r }) => ({
    ...r,
    start: new Date(r.start),
    p50: roundMs(latency?.[0]),
    p95: roundMs(latency?.[1]),
    p99: roundMs(latency?.[2]),
  }));
}

const roundMs = (v: number | null | undefined) =>
  v === null || v === undefined ? null : Math.round(v);
