export interface HedgeOptions {
  enabled: boolean;
  quantile: number;
  minMs: number;
  maxMs: number;
}

/** Answer times kept, and answers seen before the quantile is trusted. */
const SAMPLES_MAX = 256;
const SAMPLES_MIN = 20;
/** The quantile is recomputed after this many new answers, not on every call (it sorts). */
const RECOMPUTE_EVERY = 32;

/**
 * How long a read waits before it is hedged: a quantile of the pool's recent answer times, so
 * that only the slowest few percent of reads are sent twice whatever the normal latency is (a
 * fixed delay either hedges everything on a slow network or nothing on a fast one), clamped to
 * [minMs, maxMs]. Until the pool has seen enough answers, maxMs.
 */
export class HedgeDelay {
  private readonly samples: number[] = [];
  private next = 0;
  private sinceComputed = 0;
  private delay: number;

  constructor(private readonly opts: HedgeOptions) {
    this.delay = opts.maxMs;
  }

  /** One answer's time, in ms. */
  add(ms: number): void {
    if (this.samples.length < SAMPLES_MAX) this.samples.push(ms);
    else {
      this.samples[this.next] = ms;
      this.next = (this.next + 1) % SAMPLES_MAX;
    }
    this.sinceComputed += 1;
    if (this.samples.length >= SAMPLES_MIN && this.sinceComputed >= RECOMPUTE_EVERY) {
      this.sinceComputed = 0;
      const sorted = [...this.samples].sort((a, b) => a - b);
      const at =
        sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * this.opts.quantile))]!;
      this.delay = Math.min(this.opts.maxMs, Math.max(this.opts.minMs, Math.ceil(at)));
    }
  }

  get ms(): number {
    return this.delay;
  }
}
