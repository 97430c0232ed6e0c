// Built by `npm run build` from src/ (scripts/build.mjs); do not edit.

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

// src/accounts/accounts.ts
var toAccount = (r) => ({
  id: r.id,
  name: r.name,
  createdAt: r.created_at,
  balance: r.balance,
  held: r.held,
  plan: r.plan
});
var AccountExists = class extends Error {
};
async function createAccount(db, name) {
  if (!/^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/.test(name)) {
    throw new Error("account name: 1-64 characters of letters, digits, '.', '_', '@', '-'");
  }
  const { rows } = await db.query(
    `INSERT INTO accounts(name) VALUES ($1) ON CONFLICT (name) DO NOTHING
     RETURNING id, name, created_at, balance, held, plan`,
    [name]
  );
  if (!rows[0]) throw new AccountExists(`account "${name}" exists`);
  return toAccount(rows[0]);
}
async function findAccount(db, ref) {
  const byId = typeof ref === "number" || /^\d+$/.test(ref);
  const { rows } = await db.query(
    `SELECT id, name, created_at, balance, held, plan FROM accounts WHERE ${byId ? "id" : "name"} = $1`,
    [byId ? Number(ref) : ref]
  );
  return rows[0] ? toAccount(rows[0]) : null;
}
async function listAccounts(db) {
  const { rows } = await db.query(
    "SELECT id, name, created_at, balance, held, plan FROM accounts ORDER BY id"
  );
  return rows.map(toAccount);
}
async function setAccountPlan(db, accountId, plan) {
  const { rows } = await db.query(
    "UPDATE accounts SET plan = $2 WHERE id = $1 RETURNING id",
    [accountId, plan]
  );
  if (rows.length === 0) return false;
  await db.notify("account_changed", String(accountId));
  return true;
}

// src/usage/usage.ts
var REFUSED_OUTCOMES = [
  "rejected",
  "unauthenticated",
  "forbidden",
  "rate_limited",
  "credit_cap",
  "insufficient_credits"
];
var REFUSED_SQL = `outcome IN (${REFUSED_OUTCOMES.map((o) => `'${o}'`).join(", ")})`;
var IN_RANGE = "($2::timestamptz IS NULL OR at >= $2) AND ($3::timestamptz IS NULL OR at < $3)";
var rangeParams = (accountId, range) => [
  accountId,
  range?.start ?? null,
  range?.end ?? null
];
async function usageByMethod(db, accountId, range) {
  const { rows } = await db.query(
    `SELECT backend, network, method, sum(calls)::int8 AS calls,
       coalesce(sum(calls) FILTER (WHERE ${REFUSED_SQL}), 0)::int8 AS refused,
       sum(charged_cc)::int8 AS charged
     FROM audit_records WHERE account_id = $1 AND ${IN_RANGE}
     GROUP BY backend, network, method ORDER BY backend, network, method`,
    rangeParams(accountId, range)
  );
  return rows;
}
async function usageByDay(db, accountId, range) {
  const { rows } = await db.query(
    `SELECT to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, sum(calls)::int8 AS calls, sum(charged_cc)::int8 AS charged
     FROM audit_records WHERE account_id = $1 AND ${IN_RANGE} GROUP BY 1 ORDER BY 1`,
    rangeParams(accountId, range)
  );
  return rows;
}
async function usageByOutcome(db, accountId, range) {
  const { rows } = await db.query(
    `SELECT outcome, http_status AS "httpStatus", sum(calls)::int8 AS calls, sum(charged_cc)::int8 AS charged
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
  cycleAt,
  cycleContaining,
  AccountExists,
  createAccount,
  findAccount,
  listAccounts,
  setAccountPlan,
  REFUSED_OUTCOMES,
  usageByMethod,
  usageByDay,
  usageByOutcome,
  auditInRange,
  latestAudit
};
