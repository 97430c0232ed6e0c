import { EventEmitter } from "node:events";
import pg from "pg";
import { lostCreateRace } from "./concurrent-create.ts";
import type { Database, Queryable, SignalChannel } from "./database.ts";
import { leadWithAdvisoryLock } from "./leadership.ts";

// int8 columns hold credits and ids; every value we store fits in 2^53, so parse them as numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export interface PostgresOptions {
  connectionString: string;
  poolSize: number;
  /** A schema to work in (created if missing); tests use one per file so they can run in parallel. */
  schema?: string;
}

export async function openPostgres(opts: PostgresOptions): Promise<Database> {
  const pool = new pg.Pool({
    connectionString: opts.connectionString,
    max: opts.poolSize,
    ...(opts.schema ? { options: `-c search_path=${opts.schema}` } : {}),
  });
  // An idle client's network error must not crash the process; the pool replaces the client.
  pool.on("error", () => {});
  // The settle statements' own connections (Database.settles), two: the settle queue's statements
  // in flight at once.
  const settlePool = new pg.Pool({
    connectionString: opts.connectionString,
    max: 2,
    options: `-c enable_seqscan=off${opts.schema ? ` -c search_path=${opts.schema}` : ""}`,
  });
  settlePool.on("error", () => {});
  if (opts.schema) {
    if (!/^[a-z_][a-z0-9_]*$/.test(opts.schema)) throw new Error("schema: lowercase identifier");
    try {
      await pool.query(`CREATE SCHEMA IF NOT EXISTS ${opts.schema}`);
    } catch (err) {
      // Two processes starting at once on a new schema: the schema exists, all this wanted.
      if (!lostCreateRace(err)) throw err;
    }
  }
  const queryable = (client: pg.Pool | pg.PoolClient): Queryable => ({
    async query<R extends object>(sql: string, params?: readonly unknown[]) {
      const values = params as unknown[] | undefined;
      const name = values ? statementName(sql) : undefined;
      const res = await client.query(name ? { name, text: sql, values } : { text: sql, values });
      return { rows: res.rows as R[] };
    },
  });
  // Signals are scoped to the schema in effect, however it was chosen (option or search_path).
  const { rows: current } = await pool.query<{ schema: string; database: string }>(
    "SELECT current_schema() AS schema, current_database() AS database",
  );
  const signals = new Signals(opts.connectionString, current[0]?.schema ?? "public");
  return {
    kind: "postgres",
    namespace: `${current[0]?.database ?? ""}.${current[0]?.schema ?? "public"}`,
    ...queryable(pool),
    settles: { ...queryable(settlePool), planned: "index" },
    async notify(channel, payload) {
      await pool.query("SELECT pg_notify($1, $2)", [signals.channel(channel), payload]);
      // This process acts on it at once; the NOTIFY's echo on our own connection comes later.
      signals.emitLocal(channel, payload);
    },
    listen(channel, fn) {
      signals.on(channel, fn);
    },
    listening: () => signals.connected,
    lead: (name, onChange, retryMs) =>
      leadWithAdvisoryLock(opts.connectionString, `${signals.channel("chain_event")}:${name}`, {
        onChange,
        retryMs,
      }),
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        const out = await fn(queryable(client));
        await client.query("COMMIT");
        return out;
      } catch (err) {
        await client.query("ROLLBACK").catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    },
    async exec(sql: string) {
      await pool.query(sql);
    },
    async close() {
      await signals.close();
      await Promise.all([pool.end(), settlePool.end()]);
    },
  };
}

/**
 * PostgreSQL NOTIFY between gateway processes, on one dedicated connection that LISTENs (opened on
 * the first `on`, reopened with backoff when it drops). Channels carry the schema's name, as
 * NOTIFY is database-wide and schemas keep apart stores that share a server (tests).
 */
class Signals {
  private readonly events = new EventEmitter();
  private client: pg.Client | null = null;
  private readonly channels = new Set<SignalChannel>();
  private closed = false;
  private retryMs = 100;
  connected = false;

  constructor(
    private readonly connectionString: string,
    private readonly schema: string,
  ) {
    this.events.setMaxListeners(0);
  }

  emitLocal(name: SignalChannel, payload: string): void {
    this.events.emit(name, payload);
  }

  channel(name: SignalChannel): string {
    return `blockgate_${this.schema}_${name}`;
  }

  on(name: SignalChannel, fn: (payload: string) => void): void {
    this.events.on(name, fn);
    if (this.channels.has(name)) return;
    this.channels.add(name);
    if (this.client && this.connected) {
      this.client.query(`LISTEN "${this.channel(name)}"`).catch(() => this.client?.end());
    } else if (!this.client) {
      void this.connect();
    }
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({ connectionString: this.connectionString });
    this.client = client;
    client.on("notification", (msg) => {
      for (const name of this.channels) {
        if (msg.channel === this.channel(name)) this.events.emit(name, msg.payload ?? "");
      }
    });
    const lost = () => {
      if (this.client !== client) return;
      this.connected = false;
      this.client = null;
      client.end().catch(() => {});
      if (this.closed) return;
      const retry = setTimeout(() => void this.connect(), this.retryMs);
      retry.unref();
      this.retryMs = Math.min(this.retryMs * 2, 5_000);
    };
    client.on("error", lost);
    client.on("end", lost);
    try {
      await client.connect();
      for (const name of this.channels) await client.query(`LISTEN "${this.channel(name)}"`);
      this.connected = true;
      this.retryMs = 100;
    } catch {
      lost();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.connected = false;
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => {});
  }
}

/**
 * Statements with parameters run as named prepared statements: each connection parses and plans
 * one the first time and then only binds values (the settle batch's plan is costly to make). Our SQL texts are constants; the bound keeps a process that builds texts
 * at run time from preparing without end (past it, statements run unnamed, as before).
 */
const names = new Map<string, string>();
const NAMED_MAX = 500;
function statementName(sql: string): string | undefined {
  const known = names.get(sql);
  if (known) return known;
  if (names.size >= NAMED_MAX) return undefined;
  const name = `blockgate_${names.size}`;
  names.set(sql, name);
  return name;
}
