/** A trip's outcome, kept after it ended, until `until` (the clock's ms). */
interface Finished<T> {
  trip: Promise<T>;
  until: number;
}

/**
 * Trips that ended moments ago, whose outcome an identical request arriving now may take instead
 * of a trip of its own (decision 0058): a request that joins a trip in flight (shared-trips.ts)
 * takes an answer up to that trip's duration older than its asking, and one that comes just after
 * the end may take it for as long again, at most `msMax`, and never once the chain's tip moved
 * (`newTip`): a trip under way when the tip moved is not kept at all. Only outcomes `keepable`
 * says are kept (answers, not failures). Nothing is charged here: each caller's route charges and
 * audits its own call, as for a trip joined in flight.
 *
 * Entries live in two generations of at most `msMax` each, so what expired goes without a timer.
 */
export class FinishedTrips<T> {
  private current = new Map<string, Finished<T>>();
  private previous = new Map<string, Finished<T>>();
  private rotatedAt = Number.NEGATIVE_INFINITY;
  /** Bumped at each new tip: a trip that started under another is not kept. */
  private tip = 0;
  /** Outcomes kept, and requests that took one (for tests and benchmarks). */
  readonly stats = { kept: 0, taken: 0 };

  constructor(
    private readonly msMax: number,
    private readonly keepable: (outcome: T) => boolean,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Keeps `trip`'s outcome once it ends, if keepable and the tip has not moved meanwhile. */
  watch(key: string, trip: Promise<T>): void {
    if (this.msMax === 0) return;
    const started = this.now();
    const tip = this.tip;
    trip.then(
      (outcome) => {
        if (tip !== this.tip || !this.keepable(outcome)) return;
        const ended = this.now();
        this.keep(key, { trip, until: ended + Math.min(ended - started, this.msMax) });
      },
      () => {},
    );
  }

  /** The outcome of an identical trip that ended within its bound, if there is one. */
  get(key: string): Promise<T> | undefined {
    if (this.msMax === 0) return undefined;
    const entry = this.current.get(key) ?? this.previous.get(key);
    if (entry === undefined || this.now() > entry.until) return undefined;
    this.stats.taken += 1;
    return entry.trip;
  }

  /** Entries held now, expired ones included until their generation goes. */
  get size(): number {
    return this.current.size + this.previous.size;
  }

  /** The chain's tip moved: nothing finished before, or under way now, is taken from here on. */
  newTip(): void {
    this.tip += 1;
    if (this.current.size > 0) this.current = new Map();
    if (this.previous.size > 0) this.previous = new Map();
  }

  private keep(key: string, entry: Finished<T>): void {
    const now = this.now();
    // Everything in `previous` was kept over msMax ago, so it has expired.
    if (now - this.rotatedAt >= this.msMax) {
      this.previous = this.current;
      this.current = new Map();
      this.rotatedAt = now;
    }
    this.current.set(key, entry);
    this.stats.kept += 1;
  }
}
