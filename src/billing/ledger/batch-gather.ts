/**
 * When the settle queue's next statement should wait a moment for more of its batch: the group
 * commit's counterpart of PostgreSQL's commit_delay. A statement costs the same fixed time (its
 * commit's WAL flush, the executor, the triggers) whether it settles one call or eight, so under
 * load fewer, fuller statements answer every caller sooner. Left to itself the queue splits a
 * steady load in two: a batch starts as soon as the previous one commits, with whatever came
 * meanwhile, and the callers of the batch just answered send their next requests a moment later,
 * into the batch after (docs/benchmarks.md has the figures). It waits only when fewer calls are
 * queued than recent batches held and calls arrive well faster than statements are written; at a
 * trickle every statement starts at once. The wait ends at the expected size or `maxWaitUs`.
 */

/** How many of the last batches the expected size is taken over. */
const RECENT_BATCHES = 8;
/** How many of the last arrivals the arrival rate is taken over. */
const RECENT_ARRIVALS = 32;
/** A statement's time (ms) until one has been measured, and the weight of each new one. */
const STATEMENT_MS_FIRST = 0.6;
const STATEMENT_MS_WEIGHT = 0.2;
/**
 * Calls that must arrive per statement's time for a statement to wait: at one, a steady open load
 * already waited for nothing; at two it does not, and a closed load still gains
 * (docs/benchmarks.md, "Settle gather").
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
