import { Cancel, type CancelSignal } from "../util/cancel.ts";

/** A signal as undici's types name it (its request reads only what CancelSignal has). */
export const undiciSignal = (signal: CancelSignal): AbortSignal => signal as unknown as AbortSignal;

/**
 * A deadline for one upstream request: `signal` aborts with a TimeoutError (the reason
 * AbortSignal.timeout gives, which transportFailure reads as a timeout) after `ms`, unless
 * `clear` is called first — as every request does once it has its answer.
 *
 * Why not AbortSignal.timeout: its timer stays armed for the whole timeout after the request is
 * done (it is dropped only when the signal is collected, through a weak reference and a
 * finalization registry). At a few thousand requests per second with 30 s timeouts that is tens of
 * thousands of live timers, weak references and registry entries: most of what the heap held
 * under load, and garbage collection to match.
 */
export function deadline(
  ms: number,
  /** A deadline of the caller's that also ends this one (AbortSignal.any's job, without its cost). */
  outer?: CancelSignal,
): { signal: CancelSignal; clear(): void } {
  const cancel = new Cancel();
  const timer = setTimeout(
    () =>
      cancel.abort(new DOMException("The operation was aborted due to timeout", "TimeoutError")),
    ms,
  );
  if (!outer) return { signal: cancel, clear: () => clearTimeout(timer) };
  const follow = () => cancel.abort(outer.reason);
  if (outer.aborted) follow();
  else outer.addEventListener("abort", follow, { once: true });
  return {
    signal: cancel,
    clear: () => {
      clearTimeout(timer);
      outer.removeEventListener("abort", follow);
    },
  };
}

/** Runs `work` under a deadline of `ms`, cleared whether it succeeds or fails. */
export async function withDeadline<T>(
  ms: number,
  work: (signal: CancelSignal) => Promise<T>,
): Promise<T> {
  const d = deadline(ms);
  try {
    return await work(d.signal);
  } finally {
    d.clear();
  }
}
