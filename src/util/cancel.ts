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
 * A signal of our own, and the way to raise it: what `new AbortController()` gives, without
 * Node's AbortSignal. Node makes each AbortSignal an EventTarget whose prototype is then swapped
 * and which then gets properties of its own, and V8 keeps every such object alive through the
 * young generation's collections — and with it whatever its listeners hold: an upstream call's
 * handler, its answer (measured in a fresh process: 5,000 deadlines holding 1 KB each promoted
 * 4.36 MB with AbortController, 5.8 KB with this; test/support/deadline-promotion.ts). A long-lived
 * native signal given listeners and rid of them at every request promotes ~0.8 MB per 5,000 too
 * (its listener map's table churn: util/in-flight-map.ts). The gateway makes two or three signals
 * per upstream call (the attempt's, its deadline's) and one per request Yoga runs (its connection
 * closing). Listeners are called once, in the order added, when it is raised; one added after
 * that is not called, as with an EventTarget.
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
