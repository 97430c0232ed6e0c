/** How many of the last arrivals the arrival rate is taken over. */
const ARRIVALS = 64;
/** The weight of each new request's time in the running mean. */
const WEIGHT = 0.05;
/** Requests open longer than this (a subscription's stream, a slow upstream) are not averaged. */
const LONG_MS = 1_000;

/**
 * How many requests the clients keep in flight, recently: arrivals a millisecond times
 * milliseconds a request (Little's law), over the last arrivals and the requests that ended
 * within a second. A closed loop of N clients keeps about N, a few of them at any moment on their
 * way back from the client, which no count of open requests sees; a stream held open for minutes
 * counts as one arrival and no time. The backend routes tell it of their authenticated requests
 * (a probe, a scrape or a failed authentication never settles), and the settle queue of a store
 * in this process waits for them (src/billing/ledger/settle-queue.ts).
 */
export class RecentLoad {
  private readonly arrivals = new Float64Array(ARRIVALS);
  private arrived = 0;
  private msPerRequest = 0;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** A request arrived; the function returned says it ended. */
  arrival(): () => void {
    const at = this.now();
    this.arrivals[this.arrived % ARRIVALS] = at;
    this.arrived++;
    return () => {
      const ms = this.now() - at;
      if (ms > LONG_MS) return;
      this.msPerRequest =
        this.msPerRequest === 0 ? ms : this.msPerRequest + WEIGHT * (ms - this.msPerRequest);
    };
  }

  /** Requests in flight, by Little's law; 0 until two have arrived and one has ended. */
  inFlight(): number {
    const seen = Math.min(this.arrived, ARRIVALS);
    if (seen < 2) return 0;
    const first = this.arrivals[(this.arrived - seen) % ARRIVALS] as number;
    // Counted up to now: a load that stopped has no rate.
    const perMs = (seen - 1) / Math.max(this.now() - first, 1e-3);
    return perMs * this.msPerRequest;
  }
}
