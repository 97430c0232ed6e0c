// Built by `npm run build` from src/ (scripts/build.mjs); do not edit.
import {
  lostCreateRace
} from "./chunk-VNIG4S7Q.js";

// src/db/postgres.ts
import { EventEmitter } from "node:events";
import pg2 from "pg";

// src/db/leadership.ts
import pg from "pg";
function leadWithAdvisoryLock(connectionString, key, opts) {
  let client = null;
  let leader = false;
  let stopped = false;
  let timer = null;
  let tried = () => {
  };
  const firstTry = new Promise((resolve) => {
    tried = resolve;
  });
  const become = (value) => {
    if (leader === value) return;
    leader = value;
    opts.onChange(value);
  };
  const later = () => {
    if (stopped) return;
    timer = setTimeout(() => void attempt(), opts.retryMs);
    timer.unref();
  };
  const drop = (c) => {
    if (client !== c) return;
    client = null;
    c.end().catch(() => {
    });
    become(false);
    later();
  };
  const attempt = async () => {
    timer = null;
    if (stopped) return;
    try {
      if (!client) {
        const c = new pg.Client({ connectionString });
        c.on("error", () => drop(c));
        c.on("end", () => drop(c));
        client = c;
        await c.connect();
      }
      const { rows } = await client.query(
        "SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS got",
        [key]
      );
      if (rows[0]?.got) become(true);
      else later();
    } catch {
      if (client) drop(client);
      else later();
    }
    tried(leader);
  };
  void attempt();
  return {
    leading: () => leader,
    firstTry,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      const c = client;
      client = null;
      become(false);
      await c?.end().catch(() => {
      });
    }
  };
}

// src/db/postgres.ts
pg2.types.setTypeParser(pg2.types.builtins.INT8, (v) => Number(v));
async function openPostgres(opts) {
  const pool = new pg2.Pool({
    connectionString: opts.connectionString,
    max: opts.poolSize,
    ...opts.schema ? { options: `-c search_path=${opts.schema}` } : {}
  });
  pool.on("error", () => {
  });
  const settlePool = new pg2.Pool({
    connectionString: opts.connectionString,
    max: 2,
    options: `-c enable_seqscan=off${opts.schema ? ` -c search_path=${opts.schema}` : ""}`
  });
  settlePool.on("error", () => {
  });
  if (opts.schema) {
    if (!/^[a-z_][a-z0-9_]*$/.test(opts.schema)) throw new Error("schema: lowercase identifier");
    try {
      await pool.query(`CREATE SCHEMA IF NOT EXISTS ${opts.schema}`);
    } catch (err) {
      if (!lostCreateRace(err)) throw err;
    }
  }
  const queryable = (client) => ({
    async query(sql, params) {
      const values = params;
      const name = values ? statementName(sql) : void 0;
      const res = await client.query(name ? { name, text: sql, values } : { text: sql, values });
      return { rows: res.rows };
    }
  });
  const { rows: current } = await pool.query(
    "SELECT current_schema() AS schema, current_database() AS database"
  );
  const signals = new Signals(opts.connectionString, current[0]?.schema ?? "public");
  return {
    kind: "postgres",
    namespace: `${current[0]?.database ?? ""}.${current[0]?.schema ?? "public"}`,
    ...queryable(pool),
    settles: { ...queryable(settlePool), planned: "index" },
    async notify(channel, payload) {
      await pool.query("SELECT pg_notify($1, $2)", [signals.channel(channel), payload]);
      signals.emitLocal(channel, payload);
    },
    listen(channel, fn) {
      signals.on(channel, fn);
    },
    listening: () => signals.connected,
    lead: (name, onChange, retryMs) => leadWithAdvisoryLock(opts.connectionString, `${signals.channel("chain_event")}:${name}`, {
      onChange,
      retryMs
    }),
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        const out = await fn(queryable(client));
        await client.query("COMMIT");
        return out;
      } catch (err) {
        await client.query("ROLLBACK").catch(() => {
        });
        throw err;
      } finally {
        client.release();
      }
    },
    async exec(sql) {
      await pool.query(sql);
    },
    async close() {
      await signals.close();
      await Promise.all([pool.end(), settlePool.end()]);
    }
  };
}
var Signals = class {
  constructor(connectionString, schema) {
    this.connectionString = connectionString;
    this.schema = schema;
    this.events.setMaxListeners(0);
  }
  connectionString;
  schema;
  events = new EventEmitter();
  client = null;
  channels = /* @__PURE__ */ new Set();
  closed = false;
  retryMs = 100;
  connected = false;
  emitLocal(name, payload) {
    this.events.emit(name, payload);
  }
  channel(name) {
    return `blockgate_${this.schema}_${name}`;
  }
  on(name, fn) {
    this.events.on(name, fn);
    if (this.channels.has(name)) return;
    this.channels.add(name);
    if (this.client && this.connected) {
      this.client.query(`LISTEN "${this.channel(name)}"`).catch(() => this.client?.end());
    } else if (!this.client) {
      void this.connect();
    }
  }
  async connect() {
    if (this.closed) return;
    const client = new pg2.Client({ connectionString: this.connectionString });
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
      client.end().catch(() => {
      });
      if (this.closed) return;
      const retry = setTimeout(() => void this.connect(), this.retryMs);
      retry.unref();
      this.retryMs = Math.min(this.retryMs * 2, 5e3);
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
  async close() {
    this.closed = true;
    this.connected = false;
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => {
    });
  }
};
var names = /* @__PURE__ */ new Map();
var NAMED_MAX = 500;
function statementName(sql) {
  const known = names.get(sql);
  if (known) return known;
  if (names.size >= NAMED_MAX) return void 0;
  const name = `blockgate_${names.size}`;
  names.set(sql, name);
  return name;
}
export {
  openPostgres
};
