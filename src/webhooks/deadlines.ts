/**
 * The time limits of the POSTs under way, on one timer for them all. `AbortSignal.timeout` gives
 * each POST a timer of its own, which outlives the POST and fires seconds after it was answered
 * (building an error nobody reads): most of a delivery's cost in timers, for a limit almost
 * never reached. Every limit here is the same length, so the order they start in is the order they
 * end in: the one timer waits for the oldest still open, and is cleared once none is.
 */
export class Deadlines {
  /** Open limits, oldest first (a Set keeps the order entries were added in). */
  private readonly open = new Set<Limit>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly ms: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /**
   * A signal aborted `ms` from now, as `AbortSignal.timeout(ms)` would be (with a TimeoutError),
   * unless `done` is called first; `done` may be called more than once.
   */
  start(): { signal: AbortSignal; done: () => void } {
    const limit = { at: this.now() + this.ms, controller: new AbortController() };
    this.open.add(limit);
    if (this.timer === null) this.arm(this.ms);
    return {
      signal: limit.controller.signal,
      done: () => {
        this.open.delete(limit);
        if (this.open.size === 0 && this.timer !== null) {
          clearTimeout(this.timer);
          this.timer = null;
        }
      },
    };
  }

  private arm(ms: number): void {
    // Not what keeps the process alive: the POST it limits is.
    this.timer = setTimeout(this.expire, Math.max(1, Math.ceil(ms))).unref();
  }

  /** Aborts every limit that has run out, then waits for the oldest left. */
  private readonly expire = (): void => {
    this.timer = null;
    const now = this.now();
    for (const limit of this.open) {
      if (limit.at > now) {
        this.arm(limit.at - now);
        return;
      }
      this.open.delete(limit);
      limit.controller.abort(
        new DOMException("The operation was aborted due to timeout", "TimeoutError"),
      );
    }
  };
}

interface Limit {
  at: number;
  controller: AbortController;
}
