// The chart's x axis: every hour or day of the span shown, filled from the timeline's buckets
// (which leave out empty ones). Slots still to come have no figures, so the lines stop at now.
import type { DashboardTimelineQuery } from "../../../generated/operations.ts";

export type Bucket = NonNullable<DashboardTimelineQuery["account"]["cycle"]>["timeline"][number];
export type Size = "DAY" | "HOUR";

export interface Slot {
  /** YYYY-MM-DD for a day, YYYY-MM-DD HH:00 for an hour (UTC). */
  label: string;
  /** Every call, refused ones included; null for a slot still to come. */
  calls: number | null;
  refused: number | null;
  failed: number | null;
  chargedCc: number | null;
  p50: number | null;
  p95: number | null;
  p99: number | null;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** Hours shown per hour: the last two days of the span, so each bar stays wide enough to read. */
export const HOURS_SHOWN = 48;

const label = (t: number, size: Size) => {
  const iso = new Date(t).toISOString();
  return size === "DAY" ? iso.slice(0, 10) : `${iso.slice(0, 10)} ${iso.slice(11, 13)}:00`;
};

/** The slots from `start` to `end` (a cycle), or its last 48 hours up to now for hours. */
export function slots(
  buckets: readonly Bucket[],
  size: Size,
  span: { start: string; end: string },
  now = Date.now(),
): Slot[] {
  const step = size === "DAY" ? DAY_MS : HOUR_MS;
  const cycleStart = Date.parse(span.start);
  const cycleEnd = Date.parse(span.end);
  const floor = (t: number) => Math.floor(t / step) * step;
  let from = floor(cycleStart);
  let to = cycleEnd;
  if (size === "HOUR") {
    to = Math.min(cycleEnd, floor(now) + HOUR_MS);
    from = Math.max(from, to - HOURS_SHOWN * HOUR_MS);
  }
  const byStart = new Map(buckets.map((b) => [floor(Date.parse(b.start)), b]));
  const out: Slot[] = [];
  for (let t = from; t < to; t += step) {
    const b = byStart.get(t);
    const past = t <= now;
    const n = (v: number | undefined) => v ?? (past ? 0 : null);
    out.push({
      label: label(t, size),
      calls: n(b?.calls),
      refused: n(b?.refusedCalls),
      failed: n(b?.failedCalls),
      chargedCc: n(b?.chargedCc),
      p50: b?.latencyP50Ms ?? null,
      p95: b?.latencyP95Ms ?? null,
      p99: b?.latencyP99Ms ?? null,
    });
  }
  return out;
}
