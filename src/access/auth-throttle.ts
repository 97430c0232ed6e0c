import { LruMap } from "../util/lru.ts";

export interface AuthThrottleOptions {
  /** Failures per address and window answered at once. */
  free: number;
  /** The first delay; 0 turns the throttle off. */
  baseMs: number;
  /** The longest delay; the failure after it locks the address out for the rest of its window. */
  maxMs: number;
  windowMs: number;
  /** Addresses remembered (LRU): a flood from many addresses cannot grow this without bound. */
  addressesMax?: number;
}

export type ThrottleVerdict = { locked: false } | { locked: true; retryAfterMs: number };

/**
 * Failed authentications per client address, so guessing tokens gets slower the more it is tried
 * (as Bitcoin Core delays a wrong RPC password, here growing): `free` failures per window are
 * answered at once, then each waits twice as long as the one before, from `baseMs` to `maxMs`,
 * and after that the address is locked out until the window ends. A lock-out costs nothing to
 * enforce: the gateway answers before looking the token up. Tokens carry 256 random bits, so the
 * throttle does not protect them from being guessed (nothing could be); it keeps a scanner or a
 * misconfigured client from costing a database lookup per request, and makes floods slow.
 */
export class AuthThrottle {
  private readonly addresses: LruMap<string, { failures: number; since: number }>;

  constructor(private readonly opts: AuthThrottleOptions) {
    this.addresses = new LruMap(opts.addressesMax ?? 100_000);
  }

  get enabled(): boolean {
    return this.opts.baseMs > 0;
  }

  /** Before authenticating: whether the address is locked out, and until when. */
  verdict(address: string, now = Date.now()): ThrottleVerdict {
    const entry = this.current(address, now);
    if (!entry || entry.failures < this.opts.free + this.delaySteps()) return { locked: false };
    return { locked: true, retryAfterMs: entry.since + this.opts.windowMs - now };
  }

  /** After a failed authentication: how long to wait before answering it. */
  failed(address: string, now = Date.now()): number {
    if (!this.enabled) return 0;
    const entry = this.current(address, now) ?? { failures: 0, since: now };
    entry.failures += 1;
    this.addresses.set(address, entry);
    const k = entry.failures - this.opts.free;
    if (k <= 0) return 0;
    return Math.min(this.opts.baseMs * 2 ** (k - 1), this.opts.maxMs);
  }

  /** Delays from baseMs doubling up to maxMs: how many failures are delayed before a lock-out. */
  private delaySteps(): number {
    const { baseMs, maxMs } = this.opts;
    if (baseMs <= 0) return Number.POSITIVE_INFINITY;
    return Math.max(1, Math.floor(Math.log2(Math.max(maxMs, baseMs) / baseMs)) + 1);
  }

  private current(address: string, now: number) {
    const entry = this.addresses.get(address);
    if (!entry) return undefined;
    if (now - entry.since >= this.opts.windowMs) {
      this.addresses.delete(address);
      return undefined;
    }
    return entry;
  }
}
