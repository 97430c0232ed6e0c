// Built by `npm run build` from src/ (scripts/build.mjs); do not edit.

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
function storableAudit(r) {
  return {
    ...r,
    method: storableText(r.method),
    errorCode: r.errorCode == null ? null : storableText(r.errorCode),
    upstreamCode: r.upstreamCode == null ? null : storableText(r.upstreamCode),
    upstream: r.upstream == null ? null : storableText(r.upstream, 200)
  };
}
async function insertAudit(db, record) {
  const r = storableAudit(record);
  const { rows } = await db.query(
    `INSERT INTO audit_records(request_id, account_id, token_id, backend, network, method, outcome,
       error_code, http_status, estimated_cc, charged_cc, complexity, upstream, duration_ms,
       upstream_code)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) RETURNING id`,
    [
      r.requestId,
      r.accountId,
      r.tokenId,
      r.backend,
      r.network,
      r.method,
      r.outcome,
      r.errorCode ?? null,
      r.httpStatus,
      r.estimatedCc,
      r.chargedCc,
      r.complexity ?? null,
      r.upstream ?? null,
      r.durationMs ?? null,
      r.upstreamCode ?? null
    ]
  );
  return rows[0].id;
}

// src/ledger/ledger.ts
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
async function reserve(db, accountId, amount) {
  if (!Number.isSafeInteger(amount) || amount < 0) throw new Error("reserve: an integer >= 0");
  if (amount === 0) return { ok: true, hold: null, available: await available(db, accountId) };
  return guarded("reserve", async () => {
    const { rows } = await db.query(
      `WITH taken AS (
         UPDATE accounts SET held = held + $2 WHERE id = $1 AND balance - held >= $2
         RETURNING balance - held AS available
       ), hold AS (
         INSERT INTO ledger_entries(account_id, kind, amount)
         SELECT $1, 'hold', -($2::int8) FROM taken RETURNING id
       )
       SELECT (SELECT id FROM hold) AS hold_id, (SELECT available FROM taken) AS available`,
      [accountId, amount]
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
  const charged = records.reduce((sum, r) => sum + r.chargedCc, 0);
  const held = hold?.amount ?? 0;
  if (charged > held)
    throw new LedgerError("settle", new Error(`charge ${charged} exceeds hold ${held}`));
  return guarded("settle", async () => {
    const rows = records.map(storableAudit);
    const col = (k) => rows.map((r) => r[k] ?? null);
    const { rows: out } = await db.query(
      `WITH acc AS (
         UPDATE accounts SET held = held - $2, balance = balance - $3
         WHERE id = $1 AND held >= $2 AND balance >= $3
         RETURNING balance - held AS available
       ), rel AS (
         INSERT INTO ledger_entries(account_id, kind, amount, hold_id)
         SELECT $1, 'release', $2, $4::int8 FROM acc WHERE $4::int8 IS NOT NULL
       ), aud AS (
         INSERT INTO audit_records(account_id, request_id, token_id, backend, network, method, outcome,
           error_code, http_status, estimated_cc, charged_cc, complexity, upstream, duration_ms,
           upstream_code)
         SELECT $1, r.* FROM unnest($5::text[], $6::int8[], $7::text[], $8::text[], $9::text[],
           $10::text[], $11::text[], $12::int[], $13::int8[], $14::int8[], $15::int[], $16::text[],
           $17::int[], $18::text[]) AS r, acc
         RETURNING id, charged_cc
       ), chg AS (
         INSERT INTO ledger_entries(account_id, kind, amount, audit_id)
         SELECT $1, 'charge', -charged_cc, id FROM aud WHERE charged_cc > 0
       )
       SELECT (SELECT available FROM acc) AS available,
              (SELECT array_agg(id ORDER BY id) FROM aud) AS audit_ids`,
      [
        accountId,
        held,
        charged,
        hold?.id ?? null,
        col("requestId"),
        col("tokenId"),
        col("backend"),
        col("network"),
        col("method"),
        col("outcome"),
        col("errorCode"),
        col("httpStatus"),
        col("estimatedCc"),
        col("chargedCc"),
        col("complexity"),
        col("upstream"),
        col("durationMs"),
        col("upstreamCode")
      ]
    );
    const row = out[0];
    if (!row || row.available === null) {
      throw new Error(`settle: account ${accountId} cannot cover ${charged}`);
    }
    return { auditIds: (row.audit_ids ?? []).map(Number), charged, available: row.available };
  });
}
async function available(db, accountId) {
  const { rows } = await db.query(
    "SELECT balance - held AS available FROM accounts WHERE id = $1",
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
       COALESCE((SELECT sum(amount) FROM ledger_entries e WHERE e.account_id = a.id), 0)::int8 AS "entriesSum"
     FROM accounts a ORDER BY a.id`
  );
  return rows.map((r) => ({
    ...r,
    ok: r.balance >= 0 && r.held >= 0 && r.granted - r.charged === r.balance && r.auditCharged === r.charged && r.openHolds === r.held && r.entriesSum === r.balance - r.held
  }));
}

// src/accounts/accounts.ts
var toAccount = (r) => ({
  id: r.id,
  name: r.name,
  createdAt: r.created_at,
  balance: r.balance,
  held: r.held
});
var AccountExists = class extends Error {
};
async function createAccount(db, name) {
  if (!/^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/.test(name)) {
    throw new Error("account name: 1-64 characters of letters, digits, '.', '_', '@', '-'");
  }
  const { rows } = await db.query(
    `INSERT INTO accounts(name) VALUES ($1) ON CONFLICT (name) DO NOTHING
     RETURNING id, name, created_at, balance, held`,
    [name]
  );
  if (!rows[0]) throw new AccountExists(`account "${name}" exists`);
  return toAccount(rows[0]);
}
async function findAccount(db, ref) {
  const byId = typeof ref === "number" || /^\d+$/.test(ref);
  const { rows } = await db.query(
    `SELECT id, name, created_at, balance, held FROM accounts WHERE ${byId ? "id" : "name"} = $1`,
    [byId ? Number(ref) : ref]
  );
  return rows[0] ? toAccount(rows[0]) : null;
}
async function listAccounts(db) {
  const { rows } = await db.query(
    "SELECT id, name, created_at, balance, held FROM accounts ORDER BY id"
  );
  return rows.map(toAccount);
}

// src/usage/usage.ts
var IN_RANGE = "($2::timestamptz IS NULL OR at >= $2) AND ($3::timestamptz IS NULL OR at < $3)";
var rangeParams = (accountId, range) => [
  accountId,
  range?.start ?? null,
  range?.end ?? null
];
async function usageByMethod(db, accountId, range) {
  const { rows } = await db.query(
    `SELECT backend, network, method, count(*)::int8 AS calls, sum(charged_cc)::int8 AS charged
     FROM audit_records WHERE account_id = $1 AND ${IN_RANGE}
     GROUP BY backend, network, method ORDER BY backend, network, method`,
    rangeParams(accountId, range)
  );
  return rows;
}
async function usageByDay(db, accountId, range) {
  const { rows } = await db.query(
    `SELECT to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*)::int8 AS calls, sum(charged_cc)::int8 AS charged
     FROM audit_records WHERE account_id = $1 AND ${IN_RANGE} GROUP BY 1 ORDER BY 1`,
    rangeParams(accountId, range)
  );
  return rows;
}
async function usageByOutcome(db, accountId, range) {
  const { rows } = await db.query(
    `SELECT outcome, http_status AS "httpStatus", count(*)::int8 AS calls, sum(charged_cc)::int8 AS charged
     FROM audit_records WHERE account_id = $1 AND ${IN_RANGE} GROUP BY 1, 2 ORDER BY 1, 2`,
    rangeParams(accountId, range)
  );
  return rows;
}
async function auditInRange(db, accountId, range, limit) {
  const { rows } = await db.query(
    `SELECT id, at, request_id, account_id, backend, network, method, outcome, error_code,
       upstream_code, http_status, estimated_cc, charged_cc, complexity, duration_ms
     FROM audit_records WHERE account_id = $1 AND ${IN_RANGE} ORDER BY id DESC LIMIT $4`,
    [...rangeParams(accountId, range), limit]
  );
  return rows;
}
async function latestAudit(db, accountId, limit) {
  return auditInRange(db, accountId, void 0, limit);
}

// src/usage/cycles.ts
var MONTHLY = { unit: "month", length: 1 };
var DAY_MS = 864e5;
function monthsAfter(anchor, months) {
  const total = anchor.getUTCMonth() + months;
  const year = anchor.getUTCFullYear() + Math.floor(total / 12);
  const month = (total % 12 + 12) % 12;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return new Date(
    Date.UTC(
      year,
      month,
      Math.min(anchor.getUTCDate(), lastDay),
      anchor.getUTCHours(),
      anchor.getUTCMinutes(),
      anchor.getUTCSeconds(),
      anchor.getUTCMilliseconds()
    )
  );
}
function boundary(anchor, rule, index) {
  return rule.unit === "day" ? new Date(anchor.getTime() + index * rule.length * DAY_MS) : monthsAfter(anchor, index * rule.length);
}
function cycleAt(anchor, index, rule = MONTHLY) {
  return { index, start: boundary(anchor, rule, index), end: boundary(anchor, rule, index + 1) };
}
function cycleContaining(anchor, at, rule = MONTHLY) {
  const elapsed = at.getTime() - anchor.getTime();
  const approx = rule.unit === "day" ? Math.floor(elapsed / (rule.length * DAY_MS)) : Math.floor(
    ((at.getUTCFullYear() - anchor.getUTCFullYear()) * 12 + at.getUTCMonth() - anchor.getUTCMonth()) / rule.length
  ) - 1;
  let index = Math.max(0, approx);
  while (index > 0 && cycleAt(anchor, index, rule).start > at) index--;
  while (cycleAt(anchor, index, rule).end <= at) index++;
  return cycleAt(anchor, index, rule);
}

// src/paths.ts
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
var PROJECT_ROOT = findRoot(dirname(fileURLToPath(import.meta.url)));
function findRoot(from) {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json"))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}
function projectPath(...parts) {
  return join(PROJECT_ROOT, ...parts);
}

export {
  projectPath,
  insertAudit,
  LedgerError,
  grantCredits,
  reserve,
  settle,
  voidStaleHolds,
  checkLedger,
  AccountExists,
  createAccount,
  findAccount,
  listAccounts,
  usageByMethod,
  usageByDay,
  usageByOutcome,
  auditInRange,
  latestAudit,
  cycleAt,
  cycleContaining
};
