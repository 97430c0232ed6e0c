import { InFlightMap } from "../util/in-flight-map.ts";

/** Calls in flight per key (an account): a slot taken before the call runs, given back after. */
export interface Slots {
  /** The slot (calls in flight with it, and how to give it back), or null at `max`. */
  acquire(key: string, max: number): Promise<Slot | null>;
}

export interface Slot {
  inFlight: number;
  release(): void;
}

/**
 * This process's calls only. With Redis, slots shared by every process are taken by the admission
 * script (redis-admission.ts): one sorted set per account whose members are the calls in flight,
 * scored by when they expire, so a process that died mid-call holds its slots only until then.
 */
export class MemorySlots implements Slots {
  private readonly counts = new InFlightMap<string, number>();

  async acquire(key: string, max: number): Promise<Slot | null> {
    const n = this.counts.get(key) ?? 0;
    if (n >= max) return null;
    this.counts.set(key, n + 1);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      const left = (this.counts.get(key) ?? 1) - 1;
      // Keys of idle accounts go, so the map holds only accounts with calls in flight.
      if (left <= 0) this.counts.delete(key);
      else this.counts.set(key, left);
    };
    return { inFlight: n + 1, release };
  }
}
