/**
 * A yes/no health check for /readyz (an upstream answers; the database answers), built so that
 * asking often costs nothing: an answer is reused for `cacheMs`, at most one check runs at a time
 * (a slow one is not joined by more), and a caller waits at most `timeoutMs` for it. Real traffic
 * counts as evidence too (`note`): an upstream that just answered a call needs no probe.
 */
export class CachedCheck {
  private last: { at: number; ok: boolean } | null = null;
  private running: Promise<boolean> | null = null;

  constructor(private readonly run: (timeoutMs: number) => Promise<boolean>) {}

  /** The latest result, or undefined before the first. */
  get lastOk(): boolean | undefined {
    return this.last?.ok;
  }

  /** Evidence from elsewhere, as fresh as a check made now. */
  note(ok: boolean): void {
    this.last = { at: Date.now(), ok };
  }

  async get(timeoutMs: number, cacheMs: number): Promise<boolean> {
    if (this.last && Date.now() - this.last.at < cacheMs) return this.last.ok;
    if (!this.running) {
      this.running = this.run(timeoutMs)
        .catch(() => false)
        .then((ok) => {
          this.running = null;
          this.note(ok);
          return ok;
        });
    }
    // A check still running after timeoutMs did not answer in time: that is a "no".
    return within(this.running, timeoutMs, false);
  }
}

/** `promise`'s value if it settles within `ms`, else `fallback` (the promise is left to finish). */
export function within<T, F>(promise: Promise<T>, ms: number, fallback: F): Promise<T | F> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<F>((resolve) => {
    timer = setTimeout(() => resolve(fallback), Math.max(0, ms));
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
