/** What the stores need from a database: PostgreSQL through `pg`, or embedded PGlite. One dialect. */
export interface Queryable {
  query<R extends object = Record<string, unknown>>(
    sql: string,
    params?: readonly unknown[],
  ): Promise<{ rows: R[] }>;
}

export interface Database extends Queryable {
  readonly kind: "postgres" | "pglite";
  /**
   * What names this store among others: PostgreSQL's database and schema (what a fleet shares);
   * PGlite is one process's own. Channels outside the database (Redis) carry it.
   */
  readonly namespace: string;
  /**
   * Where the ledger's settle statements run. PostgreSQL: two connections of their own, planning
   * with sequential scans off, so the statement's look-ups by id stay index look-ups whatever the
   * statistics said when a connection first planned it (a plan made while a table was small is
   * kept until the table is analyzed again, and a settle on a grown ledger got far slower). Such a statement may vouch for its own references
   * (migration 012). PGlite: the one connection, as every query; its settles do not vouch.
   */
  readonly settles: Queryable & { readonly planned: "index" | "default" };
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
  /**
   * Competes for the one role `name` among every process on this database: `onChange(true)` when
   * this process gets it, `onChange(false)` when it loses it (its connection dropped). PostgreSQL:
   * a session advisory lock on a connection of its own, tried again every `retryMs` by those
   * without it, so a dead leader's role passes on as soon as its session ends. PGlite is one
   * process: it always leads.
   */
  lead(name: string, onChange: (leader: boolean) => void, retryMs: number): Leadership;
  close(): Promise<void>;
}

export interface Leadership {
  leading(): boolean;
  /** Settles once the first try is over: whether this process leads now. */
  firstTry: Promise<boolean>;
  /** Gives the role up (the lock's session ends) and stops competing. */
  stop(): Promise<void>;
}

/**
 * What processes tell each other: a token revoked, an account's leased credits wanted back, an
 * account's terms (its plan) changed, a block connected to or disconnected from a chain, a top-up
 * invoice created (the process that watches them starts watching it).
 */
export type SignalChannel =
  | "token_revoked"
  | "lease_recall"
  | "account_changed"
  | "chain_event"
  | "topup_invoice";
