/** What the stores need from a database: PostgreSQL through `pg`, or embedded PGlite. One dialect. */
export interface Queryable {
  query<R extends object = Record<string, unknown>>(
    sql: string,
    params?: readonly unknown[],
  ): Promise<{ rows: R[] }>;
}

export interface Database extends Queryable {
  readonly kind: "postgres" | "pglite";
  /** Runs `fn` in one transaction: committed if it resolves, rolled back if it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Runs a script of several statements (migrations). */
  exec(sql: string): Promise<void>;
  /**
   * Tells every process on this database (this one included) `payload` on `channel`: PostgreSQL's
   * NOTIFY, scoped to the schema; PGlite is one process, so its signals stay in the process.
   */
  notify(channel: SignalChannel, payload: string): Promise<void>;
  /** Calls `fn` with every payload sent on `channel` from now on. */
  listen(channel: SignalChannel, fn: (payload: string) => void): void;
  /**
   * True while signals from other processes are being received (PostgreSQL's listening
   * connection is up; PGlite: always). While false, what relies on them must not be cached.
   */
  listening(): boolean;
  close(): Promise<void>;
}

/**
 * What processes tell each other: a token revoked, an account's leased credits wanted back, an
 * account's terms (its plan) changed.
 */
export type SignalChannel = "token_revoked" | "lease_recall" | "account_changed";
