/**
 * An account's recent rate of reservations in CC per second, weighted by age: each reservation
 * counts `amount × 1000 / halfLifeMs` and that weight halves every `halfLifeMs`, so a steady rate
 * reads about 1.44 times itself (1 / ln 2) and a lease of `leaseWindowMs` at it (credits.ts) covers
 * that much more of the calls. Reservations in the same millisecond are not decayed against each
 * other: a clock tick counts once, however many arrive in it.
 */
export class RecentRate {
  private rate = 0;

  constructor(
    private readonly halfLifeMs: number,
    private at: number,
  ) {}

  observe(amount: number, now: number): void {
    // A clock that steps back (a wall clock) decays nothing rather than growing the weight.
    const elapsed = Math.max(0, now - this.at);
    this.rate = this.rate * 0.5 ** (elapsed / this.halfLifeMs) + (amount * 1000) / this.halfLifeMs;
    this.at = Math.max(this.at, now);
  }

  /** CC per second, as of the last observation. */
  get perSecond(): number {
    return this.rate;
  }
}
