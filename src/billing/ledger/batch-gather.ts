/**
 * When the settle queue's next statement should wait a moment for more of its batch: the group
 * commit's counterpart of PostgreSQL's commit_delay. A statement costs the same fixed time (its
 * commit's WAL flush, the executor, the triggers) whether it settles one call or eight, so under
 * load fewer, fuller statements answer every caller sooner. Left to itself the queue splits a
 * steady load in two: a batch starts as soon as the previous one commits, with whatever came
 * meanwhile, and the callers of the batch just answered send their next requests a moment later,
 * into the batch after. Measured at 8 requests in flight (bench/graphql.ts (a), PostgreSQL): some
 * four calls per statement and 3,300 requests/s without it, 4,100 with it (docs/benchmarks.md,
 * "Settle gather", has the figures at other loads, and the cost at an open load).
 *
 * It waits only when waiting is likely to pay:
 * - fewer calls are queued than the largest of the last few batches held (the callers who come
 *   back as a group, under a steady load);
 * - and calls arrive well faster than statements are written (two or more per statement's time,
 *   as measured lately): slower than that, most calls find the queue idle and batching has little
 *   to gain, so at a trickle (or one caller at a time) every statement starts at once, as
 *   without it.
 * The wait ends when the batch is as large as expected, or after `maxWaitUs` at the most.
 */

/** How many of the last batches the expected size is taken over. */
const RECENT_BATCHES = 8;
/** How many of the last arrivals the arrival rate is taken over. */
const RECENT_ARRIVALS = 32;
/** A statement's time (ms) until one has been measured, and the weight of each new one. */
const STATEMENT_MS_FIRST = 0.6;
const STATEMENT_MS_WEIGHT = 0.2;
/**
 * Calls that must arrive per statement's time for a statement to wait. At one, a steady open load
 * of 1,500 requests/s already waited (p50 1.63 → 2.41 ms, bench (a) sent at a fixed rate); at two
 * it does not, and 8 requests in flight still gain 25% (see docs/benchmarks.md).
 */
const ARRIVALS_PER_STATEMENT = 2;

export interface GatherPlan {
  /** Calls to wait for. */
  calls: number;
  /** Until when at the most (performance.now(), ms). */
  until: number;
}

export class BatchGather {
  private readonly sizes: number[] = [];
  private readonly arrivals = new Float64Array(RECENT_ARRIVALS);
  private arrived = 0;
  private statementMs = STATEMENT_MS_FIRST;

  constructor(
    private readonly maxWaitUs: number,
    /** The clock the rate and the wait's bound are read on (ms). */
    readonly now: () => number = () => performance.now(),
  ) {}

  /** A call was queued. */
  arrival(): void {
    this.arrivals[this.arrived % RECENT_ARRIVALS] = this.now();
    this.arrived++;
  }

  /** A batch of `calls` was taken for a statement. */
  taken(calls: number): void {
    this.sizes.push(calls);
    if (this.sizes.length > RECENT_BATCHES) this.sizes.shift();
  }

  /** A statement took `ms` to be written (its time as the queue saw it). */
  wrote(ms: number): void {
    this.statementMs += STATEMENT_MS_WEIGHT * (ms - this.statementMs);
  }

  /** Whether the next statement should wait for more calls, with `queued` waiting now. */
  plan(queued: number): GatherPlan | null {
    if (this.maxWaitUs <= 0 || this.arrived < 2) return null;
    const expected = Math.max(...this.sizes);
    if (queued >= expected) return null;
    const seen = Math.min(this.arrived, RECENT_ARRIVALS);
    const first = this.arrivals[(this.arrived - seen) % RECENT_ARRIVALS] as number;
    const now = this.now();
    // Calls per ms over the recent arrivals, counted up to now (a load that stopped has no rate).
    const rate = (seen - 1) / Math.max(now - first, 1e-3);
    if (rate * this.statementMs < ARRIVALS_PER_STATEMENT) return null;
    return { calls: expected, until: now + this.maxWaitUs / 1000 };
  }
}
