import type { Database } from "../db/database.ts";

/**
 * How chain events travel from the leader to every process (itself included): one small
 * interface, one implementation chosen at startup (app.ts): the database's signals (PostgreSQL
 * NOTIFY; PGlite: in-process) by default, Redis pub/sub when REDIS_URL is set (redis-bus.ts).
 * Payloads are a ChainEvent's JSON; a process may hear one twice, and drops the repeat by its id.
 */
export interface EventBus {
  /** Tells every process; this one hears it at once, before any echo. */
  publish(payload: string): Promise<void>;
  /** Calls `fn` with every payload published from now on. */
  subscribe(fn: (payload: string) => void): void;
  /** Resolves once this process hears what is published (startup waits for it, bounded). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

/** The database's `chain_event` signal as the bus; the database closes itself, not here. */
export function databaseBus(db: Database): EventBus {
  return {
    publish: (payload) => db.notify("chain_event", payload),
    subscribe: (fn) => db.listen("chain_event", fn),
    ready: async () => {},
    close: async () => {},
  };
}
