import type { CapCounter } from "./cap-counters.ts";
import type { CapWindow } from "./spending-caps.ts";

/**
 * What one admitted call holds of its plan's credit caps, from its admission to its release. With
 * Redis, admission takes a guess at the call's estimate (its token's last on this route) in the
 * same script as its rates and slot; the cap phase claims it, taking only what the estimate is
 * above it, and what the call did not cost is owed back and given back with its slot: a call
 * counts its caps in the script it is admitted by and the one that releases it.
 */
export class CapTicket {
  /** Taken at admission, not yet claimed by the cap phase (given back at release if never). */
  guessed: number;
  /** Given back to the counters at release. */
  owed = 0;
  released = false;

  constructor(
    /** The account's windows and their counters when the call was admitted. */
    readonly windows: readonly CapWindow[],
    readonly counters: readonly CapCounter[],
    guessed: number,
    /** Whose estimates the guess follows: the token on this route and network. */
    readonly guessKey: string,
  ) {
    this.guessed = guessed;
  }

  /** The guess taken at admission, now the cap phase's (0: none). */
  claim(): number {
    const guessed = this.guessed;
    this.guessed = 0;
    return guessed;
  }

  /** What is to go back at release: what was owed, and a guess never claimed. */
  settle(): number {
    this.released = true;
    const amount = this.owed + this.guessed;
    this.owed = 0;
    this.guessed = 0;
    return amount;
  }
}
