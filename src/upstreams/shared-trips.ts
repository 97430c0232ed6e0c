import { InFlightMap } from "../util/in-flight-map.ts";

/**
 * Identical upstream requests in flight at the same time share one trip (as Hive Gateway's
 * deduplication does). The first caller of a key starts the trip; callers of the same
 * key that arrive while it is in flight wait for that trip and get its outcome — an answer or a
 * failure, exactly as the first caller gets it. Once the trip settles the key is forgotten: nothing
 * is kept (that is the response cache's business, src/cache/), so a caller never gets an answer
 * older than the moment it asked, only one that was still being fetched when it asked.
 *
 * Only reads belong here: the callers decide which requests may share (a call with effects must
 * run once per caller). Billing is untouched: each caller's route charges and audits its own call.
 */
export class SharedTrips<T> {
  /** Renewed as it empties (util/in-flight-map.ts says why). */
  private readonly inflight = new InFlightMap<string, Promise<T>>();
  /** Trips started, and callers that joined one already in flight (for tests and metrics). */
  readonly stats = { trips: 0, joined: 0 };

  constructor(
    /** Told each time a caller joins a trip instead of making its own. */
    private readonly onJoined: () => void = () => {},
  ) {}

  /** The outcome of the trip in flight for `key`, or of a new one made by `trip`. */
  run(key: string, trip: () => Promise<T>): Promise<T> {
    const current = this.inflight.get(key);
    if (current) {
      this.stats.joined += 1;
      this.onJoined();
      return current;
    }
    this.stats.trips += 1;
    const started = trip();
    this.inflight.set(key, started);
    const forget = () => {
      if (this.inflight.get(key) === started) this.inflight.delete(key);
    };
    started.then(forget, forget);
    return started;
  }

  /** Requests in flight now (distinct keys). */
  get size(): number {
    return this.inflight.size;
  }
}
