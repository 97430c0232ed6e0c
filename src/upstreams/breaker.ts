import type { BreakerState } from "../log/pool-observer.ts";

export type { BreakerState };

export interface BreakerOptions {
  /** Consecutive failures that open the breaker. */
  failuresMax: number;
  /** Share of failures among the last `windowCalls` outcomes that opens it. */
  failureRate: number;
  windowCalls: number;
  /** How long it stays open before a trial call may pass. */
  openMs: number;
}

/** What `admit` granted: an ordinary call, or the one trial call of a half-open breaker. */
export type Admission = "call" | "trial";

/**
 * One upstream's circuit breaker. Closed: calls pass, and N consecutive failures, or a failure
 * rate over the last outcomes, open it. Open: no call passes for `openMs`. Then half-open: one
 * trial call passes; its success closes the breaker, its failure opens it again for `openMs`.
 * A probe that answers closes it at once (the upstream is back), whatever its state.
 *
 * A state machine and nothing else: the pool decides what a failure is and when to call.
 */
export class Breaker {
  private current: BreakerState = "closed";
  private consecutive = 0;
  private openUntil = 0;
  private trialInFlight = false;
  /** The last `windowCalls` outcomes, true for a failure, as a ring. */
  private readonly window: boolean[] = [];
  private windowNext = 0;
  private windowFailures = 0;
  /** Why the upstream is held out (it disagrees with the verified chain), or null. */
  private heldFor: string | null = null;

  constructor(
    private readonly opts: BreakerOptions,
    /** Told of each change of state (for the metrics gauge). */
    private readonly onChange: (state: BreakerState) => void = () => {},
    private readonly now: () => number = Date.now,
  ) {}

  get state(): BreakerState {
    if (this.heldFor !== null) return "open";
    // An open breaker whose time is up is half-open: nothing needs to happen for that.
    if (this.current === "open" && this.now() >= this.openUntil) this.become("half-open");
    return this.current;
  }

  /** Whether a call may go now, without taking the trial slot (for choosing among upstreams). */
  get available(): boolean {
    const state = this.state;
    return state === "closed" || (state === "half-open" && !this.trialInFlight);
  }

  /** Lets a call go, taking the trial slot when half-open; null when none may go now. */
  admit(): Admission | null {
    const state = this.state;
    if (state === "closed") return "call";
    if (state === "half-open" && !this.trialInFlight) {
      this.trialInFlight = true;
      return "trial";
    }
    return null;
  }

  success(): void {
    this.consecutive = 0;
    this.record(false);
    if (this.current !== "closed" && this.heldFor === null) this.close();
  }

  /**
   * Holds the breaker open, whatever calls and probes say, until released: the upstream answers
   * but disagrees with the verified chain (src/verify/chain/), so no call may go to it.
   */
  hold(reason: string): void {
    this.heldFor = reason;
    this.trialInFlight = false;
    this.become("open");
  }

  /** Ends a hold: the upstream agrees again, and takes calls at once. */
  release(): void {
    if (this.heldFor === null) return;
    this.heldFor = null;
    this.close();
  }

  /** Why the breaker is held open, or null when it is not. */
  get held(): string | null {
    return this.heldFor;
  }

  failure(): void {
    this.consecutive += 1;
    this.record(true);
    if (this.heldFor !== null) return;
    if (this.current === "half-open") {
      this.open();
      return;
    }
    if (this.current !== "closed") return;
    const full = this.window.length >= this.opts.windowCalls;
    if (
      this.consecutive >= this.opts.failuresMax ||
      (full && this.windowFailures / this.window.length >= this.opts.failureRate)
    ) {
      this.open();
    }
  }

  /** A call that ended without telling anything about the upstream (cancelled because another answered). */
  neutral(admission: Admission): void {
    if (admission === "trial") this.trialInFlight = false;
  }

  /** A background probe's outcome: an answer closes the breaker; no answer counts as a failure. */
  probed(ok: boolean): void {
    if (this.heldFor !== null) return;
    if (ok) this.success();
    else if (this.current === "closed") this.failure();
    else this.open();
  }

  private record(failed: boolean): void {
    if (this.window.length < this.opts.windowCalls) {
      this.window.push(failed);
    } else {
      if (this.window[this.windowNext]) this.windowFailures -= 1;
      this.window[this.windowNext] = failed;
      this.windowNext = (this.windowNext + 1) % this.opts.windowCalls;
    }
    if (failed) this.windowFailures += 1;
  }

  private open(): void {
    this.openUntil = this.now() + this.opts.openMs;
    this.trialInFlight = false;
    this.become("open");
  }

  private close(): void {
    this.trialInFlight = false;
    this.consecutive = 0;
    // The old failures are forgiven: the rate starts again from the upstream's recovery.
    this.window.length = 0;
    this.windowNext = 0;
    this.windowFailures = 0;
    this.become("closed");
  }

  private become(state: BreakerState): void {
    if (this.current === state) return;
    this.current = state;
    this.onChange(state);
  }
}
