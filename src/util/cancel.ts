/**
 * What stops a piece of work: AbortSignal's shape, the part the upstream clients, the failover
 * pool, subscriptions and undici read (undici's request takes any object with
 * `addEventListener`). A native AbortSignal is one; the gateway's own are Cancels.
 */
export interface CancelSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: "abort", listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: "abort", listener: () => void): void;
}

/**
 * What `new AbortController()` gives, without Node's AbortSignal: V8 keeps each native signal, and
 * all its listeners hold (an upstream call's answer), alive through young-generation collections
 * (docs/decisions/0001-what-a-long-lived-object-may-hold.md; test/support/deadline-promotion.ts). Listeners are
 * called once, in the order added; one added after the abort is not called, as with EventTarget.
 */
export class Cancel implements CancelSignal {
  aborted = false;
  reason: unknown = undefined;
  private listeners: (() => void)[] = [];

  addEventListener(_type: "abort", listener: () => void): void {
    if (!this.aborted && !this.listeners.includes(listener)) this.listeners.push(listener);
  }

  removeEventListener(_type: "abort", listener: () => void): void {
    const at = this.listeners.indexOf(listener);
    if (at >= 0) this.listeners.splice(at, 1);
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.listeners;
    this.listeners = [];
    for (const listener of listeners) {
      try {
        listener();
      } catch (err) {
        // As an EventTarget reports a listener's error: not to the one who aborted.
        queueMicrotask(() => {
          throw err;
        });
      }
    }
  }
}
