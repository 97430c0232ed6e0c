// Built by `npm run build` from src/ (scripts/build.mjs); do not edit.
import {
  lostCreateRace
} from "./chunk-VNIG4S7Q.js";
import {
  AccountExists,
  Refused,
  auditInRange,
  createAccount,
  cycleAt,
  cycleContaining,
  endEndpoint,
  findAccount,
  latestAudit,
  listAccounts,
  listEndpoints,
  projectPath,
  recentAttempts,
  registerEndpoint,
  setAccountPlan,
  usageByMethod
} from "./chunk-UUT7BSOM.js";
import {
  issueToken,
  listTokens,
  liveOwner,
  restrictToken,
  revokeToken,
  rotateToken,
  tokenScopeSchema
} from "./chunk-BUEEPKH6.js";
import {
  RANGE_HINT,
  parseRange
} from "./chunk-M6ZRZKCO.js";

// src/db/migrate.ts
import { readdirSync, readFileSync } from "node:fs";
var MIGRATIONS_DIR = `${projectPath("src", "db", "migrations")}/`;
async function migrate(db) {
  try {
    await db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
  } catch (err) {
    if (!lostCreateRace(err)) throw err;
  }
  const files = readdirSync(MIGRATIONS_DIR).filter((f) => f.endsWith(".sql")).sort();
  const applied = [];
  for (const name of files) {
    const sql = readFileSync(MIGRATIONS_DIR + name, "utf8");
    const done = await db.transaction(async (tx) => {
      if (db.kind === "postgres") await tx.query("SELECT pg_advisory_xact_lock(7001001)");
      const seen = await tx.query("SELECT 1 FROM schema_migrations WHERE name = $1", [name]);
      if (seen.rows.length > 0) return false;
      for (const statement of splitStatements(sql)) await tx.query(statement);
      await tx.query("INSERT INTO schema_migrations(name) VALUES ($1)", [name]);
      return true;
    });
    if (done) applied.push(name);
  }
  return applied;
}
function splitStatements(sql) {
  const out = [];
  let current = "";
  let inDollar = false;
  for (const line2 of sql.split("\n")) {
    if (line2.trimStart().startsWith("--") && !inDollar) continue;
    current += `${line2}
`;
    if ((line2.match(/\$\$/g) ?? []).length % 2 === 1) inDollar = !inDollar;
    if (!inDollar && line2.trimEnd().endsWith(";")) {
      out.push(current.trim());
      current = "";
    }
  }
  if (current.trim() !== "") out.push(current.trim());
  return out;
}

// src/db/open.ts
async function openDatabase(opts) {
  const db = opts.databaseUrl ? await (await import("./postgres-TIILXP7K.js")).openPostgres({
    connectionString: opts.databaseUrl,
    poolSize: opts.poolSize,
    ...opts.schema ? { schema: opts.schema } : {}
  }) : await (await import("./pglite-ZRE6ST5Q.js")).openPglite(opts.pgliteDir, {
    fromSnapshot: opts.pgliteSnapshot
  });
  try {
    await migrate(db);
  } catch (err) {
    await db.close();
    throw err;
  }
  return db;
}

// src/cli/commands.ts
import { parseArgs } from "node:util";

// src/ledger/errors.ts
var LedgerError = class extends Error {
  constructor(operation, cause) {
    super(`ledger ${operation} failed: ${cause?.message ?? String(cause)}`, { cause });
    this.name = "LedgerError";
  }
};
async function guarded(operation, run) {
  try {
    return await run();
  } catch (err) {
    throw err instanceof LedgerError ? err : new LedgerError(operation, err);
  }
}

// src/ledger/audit.ts
var NAME_CHARS_MAX = 64;
function storableText(text, charsMax = NAME_CHARS_MAX) {
  const clean = text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD").replace(
    // biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
    /[\u0000-\u001f\u007f-\u009f]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`
  );
  return clean.length > charsMax ? clean.slice(0, charsMax) : clean;
}
function auditColumns(r) {
  return [
    r.requestId,
    r.tokenId ?? null,
    r.backend,
    r.network,
    storableText(r.method),
    r.outcome,
    r.errorCode == null ? null : storableText(r.errorCode),
    r.httpStatus,
    r.estimatedCc,
    r.chargedCc,
    r.complexity ?? null,
    r.upstream == null ? null : storableText(r.upstream, 200),
    r.durationMs ?? null,
    r.upstreamCode == null ? null : storableText(r.upstreamCode),
    r.cacheHits ?? 0
  ];
}
async function insertAudit(db, r) {
  const { rows } = await db.query(
    `INSERT INTO audit_records(request_id, token_id, backend, network, method, outcome, error_code,
       http_status, estimated_cc, charged_cc, complexity, upstream, duration_ms, upstream_code,
       cache_hits, account_id, calls, source)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)
     RETURNING id`,
    [
      ...auditColumns(r),
      r.accountId,
      r.calls ?? 1,
      r.source == null ? null : storableText(r.source)
    ]
  );
  return rows[0].id;
}

// src/ledger/batch-gather.ts
var RECENT_BATCHES = 8;
var RECENT_ARRIVALS = 32;
var STATEMENT_MS_FIRST = 0.6;
var STATEMENT_MS_WEIGHT = 0.2;
var ARRIVALS_PER_STATEMENT = 2;
var BatchGather = class {
  constructor(maxWaitUs, now = () => performance.now()) {
    this.maxWaitUs = maxWaitUs;
    this.now = now;
  }
  maxWaitUs;
  now;
  sizes = [];
  arrivals = new Float64Array(RECENT_ARRIVALS);
  arrived = 0;
  statementMs = STATEMENT_MS_FIRST;
  /** A call was queued. */
  arrival() {
    this.arrivals[this.arrived % RECENT_ARRIVALS] = this.now();
    this.arrived++;
  }
  /** A batch of `calls` was taken for a statement. */
  taken(calls) {
    this.sizes.push(calls);
    if (this.sizes.length > RECENT_BATCHES) this.sizes.shift();
  }
  /** A statement took `ms` to be written (its time as the queue saw it). */
  wrote(ms) {
    this.statementMs += STATEMENT_MS_WEIGHT * (ms - this.statementMs);
  }
  /** Whether the next statement should wait for more calls, with `queued` waiting now. */
  plan(queued) {
    if (this.maxWaitUs <= 0 || this.arrived < 2) return null;
    const expected = Math.max(...this.sizes);
    if (queued >= expected) return null;
    const seen = Math.min(this.arrived, RECENT_ARRIVALS);
    const first = this.arrivals[(this.arrived - seen) % RECENT_ARRIVALS];
    const now = this.now();
    const rate = (seen - 1) / Math.max(now - first, 1e-3);
    if (rate * this.statementMs < ARRIVALS_PER_STATEMENT) return null;
    return { calls: expected, until: now + this.maxWaitUs / 1e3 };
  }
};

// src/ledger/settle-queue.ts
var BATCHES_IN_FLIGHT = 2;
var SettleQueue = class {
  constructor(db, opts) {
    this.db = db;
    this.opts = opts;
    this.gather = new BatchGather(opts.gatherMaxUs ?? 0, opts.gatherClock);
  }
  db;
  opts;
  queue = [];
  queuedRows = 0;
  flushing = null;
  waitingForRoom = [];
  gather;
  /** Statements written and items settled, for metrics and benchmarks. */
  stats = { batches: 0, items: 0, rows: 0, failedBatches: 0, peakQueuedRows: 0 };
  /** Settles one request's records; resolves once they and their charges are committed. */
  async settle(item) {
    const rows = Math.max(1, item.records.length);
    while (this.queuedRows > 0 && this.queuedRows + rows > this.opts.pendingRowsMax) {
      await new Promise((resolve) => this.waitingForRoom.push(resolve));
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ item, rows, resolve, reject });
      this.queuedRows += rows;
      this.gather.arrival();
      this.stats.peakQueuedRows = Math.max(this.stats.peakQueuedRows, this.queuedRows);
      this.kick();
    });
  }
  /** Resolves when everything queued so far has been written (or has failed). */
  async flushed() {
    while (this.flushing || this.queue.length > 0) {
      this.kick();
      await this.flushing;
    }
  }
  kick() {
    if (this.flushing) return;
    this.flushing = this.drain().finally(() => {
      this.flushing = null;
      if (this.queue.length > 0) this.kick();
    });
  }
  async drain() {
    await new Promise((resolve) => setImmediate(resolve));
    const writing = /* @__PURE__ */ new Set();
    while (this.queue.length > 0 || writing.size > 0) {
      if (this.queue.length === 0 || writing.size >= BATCHES_IN_FLIGHT) {
        await Promise.race(writing);
        continue;
      }
      await this.gathered();
      const batch = [];
      let rows = 0;
      while (this.queue.length > 0) {
        const next = this.queue[0];
        if (batch.length > 0 && rows + next.rows > this.opts.batchRowsMax) break;
        this.queue.shift();
        batch.push(next);
        rows += next.rows;
      }
      this.gather.taken(batch.length);
      const done = this.write(batch).then(() => {
        writing.delete(done);
        this.queuedRows -= rows;
        for (const wake of this.waitingForRoom.splice(0)) wake();
      });
      writing.add(done);
    }
  }
  /** Waits, under load, for the calls the next batch is expected to hold (batch-gather.ts). */
  async gathered() {
    const plan = this.gather.plan(this.queue.length);
    if (!plan) return;
    while (this.queue.length < plan.calls && this.queuedRows < this.opts.batchRowsMax && this.gather.now() < plan.until) {
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  async write(batch) {
    try {
      const started = performance.now();
      const out = await writeBatch(
        this.db,
        batch.map((p) => p.item)
      );
      this.gather.wrote(performance.now() - started);
      this.stats.batches += 1;
      this.stats.items += batch.length;
      this.stats.rows += out.reduce((n, o) => n + o.auditIds.length, 0);
      for (const [i, p] of batch.entries()) p.resolve(out[i]);
    } catch (err) {
      this.stats.failedBatches += 1;
      if (batch.length === 1) {
        batch[0].reject(
          err instanceof LedgerError ? err : new LedgerError("settle", err)
        );
        return;
      }
      for (const p of batch) await this.write([p]);
    }
  }
};
async function writeBatch(db, items) {
  const itemRows = [];
  const recRows = [];
  const itemCharged = [];
  let holds = false;
  let idempotency = false;
  for (const item of items) {
    const charged = item.records.reduce((sum, r) => sum + r.chargedCc, 0);
    const held = item.hold?.amount ?? 0;
    if (item.hold && charged > held) {
      throw new LedgerError("settle", new Error(`charge ${charged} exceeds hold ${held}`));
    }
    const leaseUsed = item.leaseId !== null ? charged : 0;
    if (charged > 0 && !item.hold && leaseUsed === 0) {
      throw new LedgerError("settle", new Error("a charge without a hold or a lease"));
    }
    const key = item.idempotencyKey ?? null;
    holds ||= item.hold !== null;
    idempotency ||= key !== null;
    itemCharged.push(charged);
    itemRows.push([item.accountId, charged, held, item.hold?.id ?? null, leaseUsed, key]);
    for (const record of item.records) {
      recRows.push([item.accountId, item.leaseId, ...auditColumns(record)]);
    }
  }
  const { settles } = db;
  const { rows } = await settles.query(settleStatement(holds, idempotency, settles.planned === "index"), [
    JSON.stringify(itemRows),
    JSON.stringify(recRows)
  ]);
  const row = rows[0];
  const ids = (row?.audit_ids ?? []).map(Number);
  const availableOf = /* @__PURE__ */ new Map();
  (row?.accounts ?? []).forEach((id, k) => {
    availableOf.set(Number(id), Number(row?.available?.[k]));
  });
  let next = 0;
  return items.map((item, i) => {
    const available2 = availableOf.get(item.accountId);
    if (available2 === void 0) {
      throw new LedgerError("settle", new Error("an account of the batch does not exist"));
    }
    const auditIds = ids.slice(next, next + item.records.length);
    next += item.records.length;
    return { auditIds, charged: itemCharged[i], available: available2 };
  });
}
function settleStatement(holds, idempotency, vouch) {
  const key = (holds ? 1 : 0) + (idempotency ? 2 : 0) + (vouch ? 4 : 0);
  let text = statements[key];
  if (text === void 0) {
    text = settleText(holds, idempotency, vouch);
    statements[key] = text;
  }
  return text;
}
var statements = [];
var VOUCHED = ` vouched AS (
       -- The references of every row this statement writes, looked up here rather than by the
       -- triggers of migration 011, which stand aside for it (migration 012): its accounts (never
       -- deleted, so found in the statement's snapshot), its tokens, the holds and leases its
       -- entries name. The audit records its charges name are its own (recs). One missing fails
       -- the statement (23503).
       SELECT CASE
         WHEN (SELECT count(*) FROM accounts WHERE id IN (SELECT account_id FROM items))
             < (SELECT count(DISTINCT account_id) FROM items)
           OR (SELECT count(*) FROM tokens WHERE id = ANY (t.ids)) < cardinality(t.ids)
           OR (SELECT count(*) FROM ledger_entries WHERE id = ANY (h.ids)) < cardinality(h.ids)
         THEN missing_reference('settle')
         ELSE set_config('blockgate.references_vouched', statement_timestamp()::text, true)
       END AS vouched
       FROM (SELECT coalesce(array_agg(DISTINCT token_id) FILTER (WHERE token_id IS NOT NULL),
               '{}') AS ids FROM recs) t,
            (SELECT coalesce(array_agg(DISTINCT id) FILTER (WHERE id IS NOT NULL), '{}') AS ids
             FROM (SELECT hold_id AS id FROM items UNION ALL SELECT lease_id FROM recs) named) h
     ),`;
function settleText(holds, idempotency, vouch) {
  const from = ["(SELECT count(*) FROM aud) a", "(SELECT count(*) FROM chg) c"];
  if (holds) from.push("(SELECT count(*) FROM rel) r");
  if (idempotency) from.push("(SELECT count(*) FROM idem) k");
  if (vouch) from.unshift("vouched");
  return `WITH items AS (
       SELECT (e->>0)::int8 AS account_id, (e->>1)::int8 AS charged, (e->>2)::int8 AS released,
         (e->>3)::int8 AS hold_id, (e->>4)::int8 AS lease_used, e->>5 AS idempotency_key
       FROM jsonb_array_elements($1::jsonb) e
     ),${holds ? ` rel AS (
       INSERT INTO ledger_entries(account_id, kind, amount, hold_id)
       SELECT account_id, 'release', released, hold_id FROM items WHERE hold_id IS NOT NULL
       RETURNING 1
     ),` : ""} recs AS MATERIALIZED (
       SELECT nextval('audit_records_id_seq') AS id, (e->>0)::int8 AS account_id,
         (e->>1)::int8 AS lease_id, e->>2 AS request_id, (e->>3)::int8 AS token_id,
         e->>4 AS backend, e->>5 AS network, e->>6 AS method, e->>7 AS outcome,
         e->>8 AS error_code, (e->>9)::int AS http_status, (e->>10)::int8 AS estimated_cc,
         (e->>11)::int8 AS charged_cc, (e->>12)::int AS complexity, e->>13 AS upstream,
         (e->>14)::int AS duration_ms, e->>15 AS upstream_code, (e->>16)::int AS cache_hits, ord
       FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS r(e, ord)
     ),${vouch ? VOUCHED : ""} aud AS (
       INSERT INTO audit_records(id, account_id, request_id, token_id, backend, network, method,
         outcome, error_code, http_status, estimated_cc, charged_cc, complexity, upstream,
         duration_ms, upstream_code, cache_hits)
       SELECT r.id, r.account_id, r.request_id, r.token_id, r.backend, r.network, r.method,
         r.outcome, r.error_code, r.http_status, r.estimated_cc, r.charged_cc, r.complexity,
         r.upstream, r.duration_ms, r.upstream_code, r.cache_hits
       FROM recs r
       RETURNING 1
     ), chg AS (
       INSERT INTO ledger_entries(account_id, kind, amount, audit_id, hold_id)
       SELECT r.account_id, 'charge', -r.charged_cc, r.id, r.lease_id
       FROM recs r WHERE r.charged_cc > 0
       RETURNING 1
     ),${idempotency ? ` idem AS (
       UPDATE idempotency_keys k SET settled_at = now()
       FROM items i WHERE i.idempotency_key IS NOT NULL AND i.charged > 0
         AND k.account_id = i.account_id AND k.key = i.idempotency_key
       RETURNING 1
     ),` : ""} acc AS (
       UPDATE accounts a SET balance = a.balance - s.charged, held = a.held - s.released,
         leased = a.leased - s.lease_used
       FROM (SELECT account_id, sum(charged) AS charged, sum(released) AS released,
               sum(lease_used) AS lease_used
             FROM items GROUP BY account_id) s
       WHERE a.id = s.account_id
       RETURNING a.id, a.balance - a.held AS available
     )
     SELECT (SELECT array_agg(id ORDER BY ord) FROM recs) AS audit_ids,
       (SELECT array_agg(id ORDER BY id) FROM acc) AS accounts,
       (SELECT array_agg(available ORDER BY id) FROM acc) AS available
     FROM ${from.join(", ")}`;
}

// src/ledger/ledger.ts
async function grantCredits(db, accountId, amount, memo) {
  if (!Number.isSafeInteger(amount) || amount <= 0) throw new Error("grant: a positive integer");
  return db.transaction(async (tx) => {
    const { rows } = await tx.query(
      "UPDATE accounts SET balance = balance + $2 WHERE id = $1 RETURNING balance",
      [accountId, amount]
    );
    if (!rows[0]) throw new Error(`no account ${accountId}`);
    await tx.query(
      "INSERT INTO ledger_entries(account_id, kind, amount, memo) VALUES ($1, 'grant', $2, $3)",
      [accountId, amount, memo ?? null]
    );
    return rows[0].balance;
  });
}
async function reserve(db, accountId, amount, processId = null) {
  if (!Number.isSafeInteger(amount) || amount < 0) throw new Error("reserve: an integer >= 0");
  if (amount === 0) return { ok: true, hold: null, available: await available(db, accountId) };
  return guarded("reserve", async () => {
    const { rows } = await db.query(
      `WITH taken AS (
         UPDATE accounts SET held = held + $2 WHERE id = $1 AND balance - held - leased >= $2
         RETURNING balance - held - leased AS available
       ), hold AS (
         INSERT INTO ledger_entries(account_id, kind, amount, process_id)
         SELECT $1, 'hold', -($2::int8), $3 FROM taken RETURNING id
       )
       SELECT (SELECT id FROM hold) AS hold_id, (SELECT available FROM taken) AS available`,
      [accountId, amount, processId]
    );
    const row = rows[0];
    if (!row || row.hold_id === null || row.available === null) {
      return { ok: false, available: await available(db, accountId), required: amount };
    }
    return {
      ok: true,
      hold: { id: row.hold_id, accountId, amount },
      available: row.available
    };
  });
}
async function settle(db, accountId, hold, records) {
  try {
    return await settleOnce(db, accountId, hold, records);
  } catch (err) {
    if (hold) await settleOnce(db, accountId, hold, []).catch(() => {
    });
    throw err;
  }
}
async function settleOnce(db, accountId, hold, records) {
  const [out] = await guarded(
    "settle",
    () => writeBatch(db, [
      {
        accountId,
        hold: hold ? { id: hold.id, amount: hold.amount } : null,
        leaseId: null,
        records
      }
    ])
  );
  if (!out) throw new LedgerError("settle", new Error(`no account ${accountId}`));
  return out;
}
async function available(db, accountId) {
  const { rows } = await db.query(
    "SELECT balance - held - leased AS available FROM accounts WHERE id = $1",
    [accountId]
  );
  return rows[0]?.available ?? 0;
}
async function voidStaleHolds(db, olderThanMs) {
  const { rows } = await db.query(
    `SELECT h.id, h.account_id, -h.amount AS amount FROM ledger_entries h
     WHERE h.kind = 'hold' AND h.at < now() - make_interval(secs => $1::double precision / 1000)
       AND NOT EXISTS (SELECT 1 FROM ledger_entries r WHERE r.kind = 'release' AND r.hold_id = h.id)`,
    [olderThanMs]
  );
  let voided = 0;
  for (const h of rows) {
    try {
      await settle(db, h.account_id, { id: h.id, accountId: h.account_id, amount: h.amount }, []);
      voided += 1;
    } catch {
    }
  }
  return voided;
}
async function checkLedger(db) {
  const { rows } = await db.query(
    `SELECT a.id AS "accountId", a.balance, a.held,
       COALESCE((SELECT sum(amount) FROM ledger_entries e WHERE e.account_id = a.id AND kind = 'grant'), 0)::int8 AS granted,
       COALESCE((SELECT -sum(amount) FROM ledger_entries e WHERE e.account_id = a.id AND kind = 'charge'), 0)::int8 AS charged,
       COALESCE((SELECT sum(charged_cc) FROM audit_records r WHERE r.account_id = a.id), 0)::int8 AS "auditCharged",
       COALESCE((SELECT -sum(amount) FROM ledger_entries e WHERE e.account_id = a.id AND kind IN ('hold', 'release')), 0)::int8 AS "openHolds",
       a.leased,
       (COALESCE((SELECT -sum(amount) FROM ledger_entries e WHERE e.account_id = a.id AND kind IN ('lease', 'lease_return')), 0)
        + COALESCE((SELECT sum(amount) FROM ledger_entries e WHERE e.account_id = a.id AND kind = 'charge' AND hold_id IS NOT NULL), 0))::int8 AS "openLeases",
       COALESCE((SELECT sum(amount) FROM ledger_entries e WHERE e.account_id = a.id AND NOT (kind = 'charge' AND hold_id IS NOT NULL)), 0)::int8 AS "entriesSum"
     FROM accounts a ORDER BY a.id`
  );
  return rows.map((r) => ({
    ...r,
    ok: r.balance >= 0 && r.held >= 0 && r.granted - r.charged === r.balance && r.auditCharged === r.charged && r.leased >= 0 && r.openHolds === r.held && r.openLeases === r.leased && r.entriesSum === r.balance - r.held - r.leased
  }));
}

// src/usage/csv.ts
function field(value) {
  const text = value === null || value === void 0 ? "" : value instanceof Date ? value.toISOString() : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}
var line = (values) => `${values.map(field).join(",")}\r
`;
async function auditCsv(db, accountId, range) {
  const rows = (await auditInRange(db, accountId, range, 1e6)).reverse();
  const header = [
    "id",
    "at",
    "request_id",
    "backend",
    "network",
    "method",
    "outcome",
    "error_code",
    "http_status",
    "estimated_cc",
    "charged_cc",
    "complexity",
    "duration_ms"
  ];
  return line(header) + rows.map(
    (r) => line([
      r.id,
      r.at,
      r.request_id,
      r.backend,
      r.network,
      r.method,
      r.outcome,
      r.error_code,
      r.http_status,
      r.estimated_cc,
      r.charged_cc,
      r.complexity,
      r.duration_ms
    ])
  ).join("");
}
async function usageCsv(db, accountId, range) {
  const rows = await usageByMethod(db, accountId, range);
  return line(["backend", "network", "method", "calls", "charged_cc"]) + rows.map((r) => line([r.backend, r.network, r.method, r.calls, r.charged])).join("");
}

// src/cli/token-terms.ts
var SCOPE_OPTIONS = {
  backends: { type: "string" },
  networks: { type: "string" },
  methods: { type: "string" },
  origins: { type: "string" },
  ips: { type: "string" },
  expires: { type: "string" },
  grace: { type: "string" },
  unrestricted: { type: "boolean" }
};
function scopeFrom(values) {
  const given = {};
  for (const key of ["backends", "networks", "methods", "origins", "ips"]) {
    const value = values[key];
    if (value !== void 0) given[key] = value.split(",").map((s) => s.trim());
  }
  if (Object.keys(given).length === 0) return { scope: null };
  const parsed = tokenScopeSchema.safeParse(given);
  if (parsed.success) return { scope: parsed.data };
  const issue = parsed.error.issues[0];
  return { problem: `--${issue.path.join(".")}: ${issue.message}` };
}
var UNITS = { s: 1e3, m: 6e4, h: 36e5, d: 864e5 };
function durationMs(text) {
  const m = /^(\d{1,6})([smhd])$/.exec(text);
  return m ? Number(m[1]) * UNITS[m[2]] : null;
}
function expiryFrom(text, now = Date.now()) {
  const ms = durationMs(text);
  if (ms !== null) return new Date(now + ms);
  if (!/^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2}))?$/.test(text)) return null;
  const at = new Date(text);
  return Number.isNaN(at.getTime()) || at.getTime() <= now ? null : at;
}
function tokenLine(t, now = /* @__PURE__ */ new Date()) {
  const state = t.revokedAt ? `revoked ${t.revokedAt.toISOString()}` : t.expiresAt && t.expiresAt <= now ? `expired ${t.expiresAt.toISOString()}` : t.expiresAt ? `live until ${t.expiresAt.toISOString()}` : "live";
  const scope = t.scope ? Object.entries(t.scope).map(([k, v]) => `${k}=${v.join(",")}`).join(" ") : "unrestricted";
  return `${t.id}	${t.hint}	${t.label ?? ""}	issued ${t.createdAt.toISOString()}	${state}	${scope}`;
}

// src/webhooks/targets.ts
import { lookup as dnsLookup } from "node:dns";
import { BlockList, isIP } from "node:net";
var NOT_PUBLIC = [
  ["0.0.0.0", 8, "ipv4"],
  // "this network"
  ["10.0.0.0", 8, "ipv4"],
  // private
  ["100.64.0.0", 10, "ipv4"],
  // carrier-grade NAT
  ["127.0.0.0", 8, "ipv4"],
  // loopback
  ["169.254.0.0", 16, "ipv4"],
  // link-local (cloud metadata services live here)
  ["172.16.0.0", 12, "ipv4"],
  // private
  ["192.0.0.0", 24, "ipv4"],
  // IETF protocol assignments
  ["192.0.2.0", 24, "ipv4"],
  // documentation
  ["192.88.99.0", 24, "ipv4"],
  // 6to4 relay anycast
  ["192.168.0.0", 16, "ipv4"],
  // private
  ["198.18.0.0", 15, "ipv4"],
  // benchmarking
  ["198.51.100.0", 24, "ipv4"],
  // documentation
  ["203.0.113.0", 24, "ipv4"],
  // documentation
  ["224.0.0.0", 4, "ipv4"],
  // multicast
  ["240.0.0.0", 4, "ipv4"],
  // reserved, broadcast
  ["::", 128, "ipv6"],
  // unspecified
  ["::1", 128, "ipv6"],
  // loopback
  ["64:ff9b:1::", 48, "ipv6"],
  // local-use NAT64
  ["100::", 64, "ipv6"],
  // discard-only
  ["2001::", 23, "ipv6"],
  // IETF protocol assignments
  ["2001:db8::", 32, "ipv6"],
  // documentation
  ["2002::", 16, "ipv6"],
  // 6to4: an IPv4 address inside
  ["fc00::", 7, "ipv6"],
  // unique local
  ["fe80::", 10, "ipv6"],
  // link-local
  ["fec0::", 10, "ipv6"],
  // site-local (deprecated)
  ["ff00::", 8, "ipv6"]
  // multicast
];
var notPublic = new BlockList();
for (const [address, prefix, type] of NOT_PUBLIC) notPublic.addSubnet(address, prefix, type);
function embeddedIPv4(address) {
  const m = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (m) return m[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex) return null;
  const hi = Number.parseInt(hex[1], 16);
  const lo = Number.parseInt(hex[2], 16);
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join(".");
}
var TargetPolicy = class {
  allowed = new BlockList();
  /** `allow`: CIDR blocks (or single addresses) a target may resolve to although not public. */
  constructor(allow) {
    for (const entry of allow) {
      const range = parseRange(entry);
      if (!range) throw new Error(`webhooks.allowTargets: "${entry}": ${RANGE_HINT}`);
      this.allowed.addSubnet(range.address, range.prefix, range.family);
    }
  }
  /** Why a connection to `address` (an IP literal) is refused, or null when it may go. */
  refusal(address) {
    const type = isIP(address);
    if (type === 0) return `"${address}" is not an IP address`;
    const family = type === 4 ? "ipv4" : "ipv6";
    if (this.allowed.check(address, family)) return null;
    const inner = type === 6 ? embeddedIPv4(address) : null;
    if (inner !== null && this.allowed.check(inner, "ipv4")) return null;
    if (notPublic.check(address, family) || inner !== null && notPublic.check(inner, "ipv4")) {
      return `${address} is not a public address (private, loopback, link-local or reserved); the operator has not allowed it`;
    }
    return null;
  }
  /**
   * A DNS lookup for sockets (net.connect's `lookup`) that fails, rather than connect, when a
   * name resolves to any address this policy refuses: the check made where the address is used.
   */
  lookup = (hostname, options, callback) => {
    dnsLookup(
      hostname,
      { all: true, family: Number(options.family ?? 0) },
      (err, found) => {
        if (err) return callback(err, []);
        const refused = found.map((a) => this.refusal(a.address)).find((r) => r !== null);
        if (refused) {
          const error = new Error(`${hostname}: ${refused}`);
          error.code = "EWEBHOOKTARGET";
          return callback(error, []);
        }
        if (options.all) return callback(null, found);
        const first = found[0];
        callback(null, first.address, first.family);
      }
    );
  };
  /**
   * Why a connection to `url`'s host is refused when that host is an IP address (no lookup runs
   * for one, so the guarded lookup never sees it); null for a name or an allowed address.
   */
  literalRefusal(url) {
    const host = hostOf(url);
    return isIP(host) === 0 ? null : this.refusal(host);
  }
  /**
   * Why `raw` cannot be a webhook's URL, or null: http(s) only, no credentials in it, and every
   * address its host resolves to (now) allowed. Resolving here tells the account at once; the
   * guarded lookup checks again at each delivery.
   */
  async check(raw) {
    if (raw.length > 2e3) return "url: at most 2,000 characters";
    let url;
    try {
      url = new URL(raw);
    } catch {
      return "url: not a URL";
    }
    if (url.protocol !== "https:" && url.protocol !== "http:") return "url: http or https only";
    if (url.username || url.password) return "url: no credentials in the URL";
    const host = hostOf(url);
    if (isIP(host) !== 0) {
      const refused = this.refusal(host);
      return refused ? `url: ${refused}` : null;
    }
    return new Promise((resolve) => {
      this.lookup(host, { all: true }, (err) => {
        if (!err) resolve(null);
        else if (err.code === "EWEBHOOKTARGET") resolve(`url: ${err.message}`);
        else resolve(`url: ${host} does not resolve (${err.code ?? err.message})`);
      });
    });
  }
};
function hostOf(url) {
  return url.hostname.replace(/^\[(.*)\]$/, "$1");
}

// src/cli/webhook-commands.ts
var WEBHOOK_OPTIONS = {
  event: { type: "string" },
  network: { type: "string" },
  txid: { type: "string" },
  address: { type: "string" },
  until: { type: "string" },
  targets: { type: "string" },
  description: { type: "string" }
};
async function runWebhookCommand(db, config, verb, rest, values, mistake, account2) {
  const id = (ref, what) => {
    if (!ref || !/^\d+$/.test(ref)) throw mistake(`name ${what} by its id`);
    return Number(ref);
  };
  switch (verb) {
    case "add": {
      const tokenId2 = id(rest[0], "the token the endpoint acts for (token list)");
      const url = rest[1];
      if (!url) throw mistake("give the endpoint's URL");
      const owner = await liveOwner(db, tokenId2);
      if (!owner) return { text: `no live token ${tokenId2}`, code: 1 };
      const until = values.until === void 0 ? void 0 : Number(values.until);
      const targets = values.targets?.split(",").map((s) => Number(s.trim()));
      try {
        const made = await registerEndpoint(
          db,
          config,
          new TargetPolicy(config.webhooks.allowTargets),
          owner,
          {
            url,
            network: values.network ?? "regtest",
            event: values.event ?? "newBlock",
            args: {
              ...values.txid ? { txid: values.txid } : {},
              ...values.address ? { address: values.address } : {},
              ...until !== void 0 ? { until } : {},
              ...targets ? { targets } : {}
            },
            description: values.description ?? null
          }
        );
        const e = made.endpoint;
        return {
          text: `webhook ${e.id}: ${e.event} on ${e.network} \u2192 ${e.url}, for token ${e.tokenId}
signing secret (shown once, store it now):
${made.secret}`,
          code: 0
        };
      } catch (err) {
        if (err instanceof Refused) throw mistake(err.message);
        throw err;
      }
    }
    case "list": {
      const owner = await account2(rest[0]);
      const rows = await listEndpoints(db, owner.id);
      const lines = rows.map(
        (e) => `${e.id}	${e.endedAt ? `ended (${e.endedWhy ?? ""})` : "live"}	${e.event}	${e.network}	${e.url}	token ${e.tokenId}`
      );
      return { text: lines.join("\n") || "no webhooks", code: 0 };
    }
    case "attempts": {
      const endpointId = id(rest[0], "a webhook");
      const limit = values.limit === void 0 ? 20 : Number(values.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 1e3) {
        throw mistake("--limit: 1 to 1000");
      }
      const rows = await recentAttempts(db, endpointId, limit);
      const lines = rows.map(
        (a) => `${a.at.toISOString()}	${a.messageId}	#${a.attempt}	${a.result}	${a.httpStatus ?? "-"}	${a.latencyMs} ms${a.error ? `	${a.error}` : ""}`
      );
      return { text: lines.join("\n") || "no attempts", code: 0 };
    }
    case "rm": {
      const endpointId = id(rest[0], "a webhook");
      return await endEndpoint(db, endpointId, "deleted") ? { text: `webhook ${endpointId} deleted`, code: 0 } : { text: `no live webhook ${endpointId}`, code: 1 };
    }
    default:
      throw mistake("webhook add | list | attempts | rm");
  }
}

// src/cli/commands.ts
var UsageError = class extends Error {
};
var HELP = `usage: blockgate <command>

  serve                                  start the gateway (same as npm start)
  account create <name> [--credits N]    create an account, optionally with credits
  account list                           accounts with their balances and plans
  account plan <account> <plan|default>  put an account on a plan of the config (limits apply within 1 s)
  token issue <account> [--label L]      issue an access token (printed once, stored hashed)
  token list <account>                   an account's tokens (hints only)
  token revoke <token-id | token>        revoke a token; its next request gets 401
  token restrict <token-id> [scope] | --unrestricted   replace a token's scope
  token rotate <token-id> [--grace 24h]  a new token; the old one works until the grace ends
    scope, for token issue and restrict (comma-separated lists; absent: unrestricted):
    --backends node,electrum,graph,gateway  --networks mainnet,\u2026  --methods getrawtransaction,\u2026
    --origins https://app.example (or *: any; lets browsers on them call, CORS)
    --ips 203.0.113.0/24,2001:db8::/32  and, for issue, --expires 30d | 2027-01-01T00:00:00Z
  credits grant <account> <CC> [--memo M]  add credits to an account
  usage <account> [--limit N]            balance, usage by method and network, latest calls
  export <account> [--cycle N] [--kind audit|usage]  a billing cycle as CSV (current cycle, audit records by default)
  ledger check                           recompute every balance from the ledger and audit log
  webhook add <token-id> <url> [--event newBlock|transactionConfirmations|addressActivity|mempoolFees]
        [--network regtest] [--txid T] [--until N] [--address A] [--targets 1,6,144] [--description D]
                                         an endpoint told of events, acting for the token (secret printed once)
  webhook list <account>                 an account's endpoints
  webhook attempts <webhook-id> [--limit N]  its latest delivery attempts: status, latency, result
  webhook rm <webhook-id>                end an endpoint: nothing more is sent to it
  config check [FILE]                    validate a config file (default $BLOCKGATE_CONFIG) as the
                                         gateway would, plus its secrets' variables and files;
                                         opens no database, connects to nothing
  decode <hex | -> [--network NAME] [--verbosity 1|2]
                                         decode a raw transaction (Core's decoderawtransaction)
                                         or block (getblock's fields the bytes determine);
                                         - reads the hex from standard input
  operator-token                         a new operator token for /metrics and /admin/* and its config line
  electrum-name <token> [network]        the TLS server name a stock Electrum wallet dials with this token
  devnet mine [--network N] [--blocks K] K blocks on the running gateway's devnet tip (regtest, 1)
  devnet reorg [--network N] [--depth D] D blocks off devnet's best chain, D + 1 new ones on the fork point

Environment: DATABASE_URL (PostgreSQL; default is the embedded PGlite store),
BLOCKGATE_CONFIG (config file), BLOCKGATE_OPERATOR_TOKEN (devnet's commands without a PGlite store).`;
function helpText() {
  return HELP;
}
function scopeOption(values) {
  const given = scopeFrom(values);
  if ("problem" in given) throw new UsageError(given.problem);
  return given.scope;
}
function tokenId(ref) {
  if (!ref || !/^\d+$/.test(ref)) throw new UsageError("name a token by its id (token list)");
  return Number(ref);
}
async function account(db, ref) {
  if (!ref) throw new UsageError("name an account");
  const found = await findAccount(db, ref);
  if (!found) throw new UsageError(`no account "${ref}"`);
  return found;
}
function positiveInt(value, what) {
  if (!value || !/^\d+$/.test(value) || !Number.isSafeInteger(Number(value)) || Number(value) <= 0) {
    throw new UsageError(`${what}: a positive whole number of CC`);
  }
  return Number(value);
}
var DB_COMMAND_GROUPS = /* @__PURE__ */ new Set([
  "account",
  "token",
  "credits",
  "usage",
  "export",
  "ledger",
  "webhook"
]);
function unknownCommand(command) {
  if (command.startsWith("-") || DB_COMMAND_GROUPS.has(command)) return null;
  return { text: HELP, code: 2 };
}
async function runDbCommand(db, argv, config) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      credits: { type: "string" },
      label: { type: "string" },
      memo: { type: "string" },
      limit: { type: "string" },
      cycle: { type: "string" },
      kind: { type: "string" },
      ...SCOPE_OPTIONS,
      ...WEBHOOK_OPTIONS
    }
  });
  const [group, verb, ...rest] = positionals;
  const out = (text) => ({ text, code: 0 });
  try {
    switch (`${group} ${group === "usage" || group === "export" ? "" : verb ?? ""}`.trim()) {
      case "account create": {
        const created = await createAccount(db, verb === "create" ? rest[0] ?? "" : "");
        let balance = 0;
        if (values.credits !== void 0) {
          balance = await grantCredits(
            db,
            created.id,
            positiveInt(values.credits, "--credits"),
            "initial grant"
          );
        }
        return out(`account ${created.name} (id ${created.id}) created, balance ${balance} CC`);
      }
      case "account list": {
        const rows = await listAccounts(db);
        return out(
          rows.map(
            (a) => `${a.id}	${a.name}	balance ${a.balance} CC	held ${a.held} CC	plan ${a.plan ?? "default"}`
          ).join("\n") || "no accounts"
        );
      }
      case "account plan": {
        const owner = await account(db, rest[0]);
        const name = rest[1];
        if (!name) throw new UsageError("name a plan, or `default`");
        if (name !== "default" && !config.plans[name]) {
          const known = Object.keys(config.plans);
          throw new UsageError(
            `no plan "${name}" in the config (${known.length > 0 ? `plans: ${known.join(", ")}` : "it has no plans"})`
          );
        }
        await setAccountPlan(db, owner.id, name === "default" ? null : name);
        return out(`account ${owner.name} (id ${owner.id}) is on plan ${name}`);
      }
      case "token issue": {
        const owner = await account(db, rest[0]);
        const scope = scopeOption(values);
        let expiresAt = null;
        if (values.expires !== void 0) {
          expiresAt = expiryFrom(values.expires);
          if (!expiresAt) {
            throw new UsageError("--expires: a duration (30d, 12h) or a future ISO 8601 instant");
          }
        }
        const issued = await issueToken(db, owner.id, { label: values.label, scope, expiresAt });
        return out(
          `token ${issued.id} for ${owner.name} (shown once, store it now):
${issued.token}`
        );
      }
      case "token restrict": {
        const id = tokenId(rest[0]);
        const scope = values.unrestricted ? null : scopeOption(values);
        if (!scope && !values.unrestricted) {
          throw new UsageError("give the new scope (--backends \u2026 --ips), or --unrestricted");
        }
        const row = await restrictToken(db, id, scope);
        return row ? out(tokenLine(row)) : { text: "no live token matched", code: 1 };
      }
      case "token rotate": {
        const id = tokenId(rest[0]);
        const graceMs = durationMs(values.grace ?? "24h");
        if (graceMs === null) throw new UsageError("--grace: a duration such as 90s, 30m, 24h, 7d");
        const rotated = await rotateToken(db, id, graceMs);
        if (!rotated) return { text: "no live token matched", code: 1 };
        return out(
          `token ${rotated.issued.id} replaces token ${id}, which works until ${rotated.oldExpiresAt.toISOString()} (shown once, store it now):
${rotated.issued.token}`
        );
      }
      case "token list": {
        const owner = await account(db, rest[0]);
        const rows = await listTokens(db, owner.id);
        return out(rows.map((t) => tokenLine(t)).join("\n") || "no tokens");
      }
      case "token revoke": {
        const ref = rest[0];
        if (!ref) throw new UsageError("name a token id or the token");
        const done = await revokeToken(
          db,
          /^\d+$/.test(ref) ? { id: Number(ref) } : { token: ref }
        );
        return done ? out("revoked") : { text: "no live token matched", code: 1 };
      }
      case "credits grant": {
        const owner = await account(db, rest[0]);
        const balance = await grantCredits(
          db,
          owner.id,
          positiveInt(rest[1], "amount"),
          values.memo
        );
        return out(`granted ${rest[1]} CC to ${owner.name}; balance ${balance} CC`);
      }
      case "usage":
        return out(await usage(db, verb, values.limit));
      case "export": {
        const owner = await account(db, verb);
        const rule = config.billing.cycle;
        const current = cycleContaining(owner.createdAt, /* @__PURE__ */ new Date(), rule);
        const index = values.cycle === void 0 ? current.index : Number(values.cycle);
        if (!Number.isInteger(index) || index < 0 || index > current.index) {
          throw new UsageError(`--cycle: 0 to ${current.index}`);
        }
        if (values.kind !== void 0 && values.kind !== "audit" && values.kind !== "usage") {
          throw new UsageError("--kind: audit or usage");
        }
        const cycle = cycleAt(owner.createdAt, index, rule);
        const csv = values.kind === "usage" ? await usageCsv(db, owner.id, cycle) : await auditCsv(db, owner.id, cycle);
        return { text: csv.trimEnd(), code: 0 };
      }
      case "webhook add":
      case "webhook list":
      case "webhook attempts":
      case "webhook rm":
        return await runWebhookCommand(
          db,
          config,
          verb,
          rest,
          values,
          (m) => new UsageError(m),
          (ref) => account(db, ref)
        );
      case "ledger check": {
        const rows = await checkLedger(db);
        const bad = rows.filter((r) => !r.ok);
        const lines = rows.map(
          (r) => `${r.ok ? "ok " : "BAD"} account ${r.accountId}: granted ${r.granted} \u2212 charged ${r.charged} = balance ${r.balance}; held ${r.held}; audit charged ${r.auditCharged}`
        );
        return { text: lines.join("\n") || "no accounts", code: bad.length > 0 ? 1 : 0 };
      }
      default:
        throw new UsageError(HELP);
    }
  } catch (err) {
    if (err instanceof UsageError || err instanceof AccountExists)
      return { text: err.message, code: 2 };
    if (err instanceof Error && /account name/.test(err.message))
      return { text: err.message, code: 2 };
    throw err;
  }
}
async function usage(db, ref, limitText) {
  const owner = await account(db, ref);
  const limit = limitText ? positiveInt(limitText, "--limit") : 10;
  const totals = await usageByMethod(db, owner.id);
  const latest = await latestAudit(db, owner.id, limit);
  const lines = [
    `account ${owner.name} (id ${owner.id}): balance ${owner.balance} CC, held ${owner.held} CC, available ${owner.balance - owner.held} CC`,
    "",
    "backend	network	method	calls	charged CC",
    ...totals.map((t) => `${t.backend}	${t.network}	${t.method}	${t.calls}	${t.charged}`),
    "",
    `latest ${latest.length} calls:`,
    ...latest.map(
      (r) => `${r.at.toISOString()}	${r.backend}/${r.network}	${r.method}	${r.outcome}${r.error_code ? ` (${r.error_code})` : ""}	${r.charged_cc} CC`
    )
  ];
  return lines.join("\n");
}

export {
  openDatabase,
  LedgerError,
  insertAudit,
  SettleQueue,
  grantCredits,
  reserve,
  available,
  voidStaleHolds,
  TargetPolicy,
  auditCsv,
  usageCsv,
  helpText,
  unknownCommand,
  runDbCommand
};
