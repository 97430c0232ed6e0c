// Built by `npm run build` from src/ (scripts/build.mjs); do not edit.
import {
  addressToScript,
  isJsonNumber,
  isJsonObject,
  jsonNumber,
  parseAmount,
  toHex
} from "./chunk-A5KRFPS2.js";
import {
  NETWORK_NAMES
} from "./chunk-M6ZRZKCO.js";

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

// src/webhooks/store.ts
var COLUMNS = "id, account_id, token_id, network, url, event, args, description, created_at, ended_at, ended_why";
var E_COLUMNS = COLUMNS.split(", ").map((c) => `e.${c}`).join(", ");
function endpointOf(r) {
  return {
    id: Number(r.id),
    accountId: Number(r.account_id),
    tokenId: Number(r.token_id),
    network: r.network,
    url: r.url,
    event: r.event,
    args: typeof r.args === "string" ? JSON.parse(r.args) : r.args,
    description: r.description,
    createdAt: new Date(r.created_at),
    endedAt: r.ended_at ? new Date(r.ended_at) : null,
    endedWhy: r.ended_why
  };
}
async function createEndpoint(db, e) {
  const { rows } = await db.query(
    `INSERT INTO webhook_endpoints(account_id, token_id, network, url, event, args, secret, description)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${COLUMNS}`,
    [
      e.accountId,
      e.tokenId,
      e.network,
      e.url,
      e.event,
      JSON.stringify(e.args),
      e.secret,
      e.description
    ]
  );
  return endpointOf(rows[0]);
}
async function countLiveEndpoints(db, accountId) {
  const { rows } = await db.query(
    "SELECT count(*) AS n FROM webhook_endpoints WHERE account_id = $1 AND ended_at IS NULL",
    [accountId]
  );
  return Number(rows[0]?.n ?? 0);
}
async function listEndpoints(db, accountId, limit = 100) {
  const { rows } = await db.query(
    `SELECT ${COLUMNS} FROM webhook_endpoints WHERE account_id = $1
     ORDER BY (ended_at IS NULL) DESC, id DESC LIMIT $2`,
    [accountId, limit]
  );
  return rows.map(endpointOf);
}
async function liveEndpoints(db, network) {
  const { rows } = await db.query(
    `SELECT ${E_COLUMNS}
     FROM webhook_endpoints e JOIN tokens t ON t.id = e.token_id
     WHERE e.network = $1 AND e.ended_at IS NULL AND t.revoked_at IS NULL
       AND (t.expires_at IS NULL OR t.expires_at > now())
     ORDER BY e.id`,
    [network]
  );
  return rows.map(endpointOf);
}
async function endEndpoint(db, id, why, accountId) {
  const { rows } = await db.query(
    `UPDATE webhook_endpoints SET ended_at = now(), ended_why = $2
     WHERE id = $1 AND ended_at IS NULL AND ($3::bigint IS NULL OR account_id = $3) RETURNING id`,
    [id, why, accountId ?? null]
  );
  return rows.length > 0;
}
async function createMessage(db, m) {
  const { rows } = await db.query(
    `INSERT INTO webhook_messages(id, endpoint_id, event_id, payload) VALUES ($1, $2, $3, $4)
     ON CONFLICT (endpoint_id, event_id) DO NOTHING RETURNING id`,
    [m.id, m.endpointId, m.eventId, m.payload]
  );
  return rows.length > 0;
}
async function pendingMessage(db, id) {
  const { rows } = await db.query(
    `SELECT m.id AS message_id, m.payload, m.created_at AS message_created_at, m.attempts, m.status,
            e.secret, ${E_COLUMNS}
     FROM webhook_messages m JOIN webhook_endpoints e ON e.id = m.endpoint_id WHERE m.id = $1`,
    [id]
  );
  const r = rows[0];
  if (!r) return null;
  return {
    id: r.message_id,
    payload: r.payload,
    createdAt: new Date(r.message_created_at),
    attempts: Number(r.attempts),
    status: r.status,
    endpoint: endpointOf(r),
    secret: r.secret
  };
}
async function recordAttempt(db, a) {
  const result = a.final && a.result !== "delivered" ? "failed" : a.result;
  const status = a.result === "delivered" ? "delivered" : a.final ? "failed" : "pending";
  const { rows } = await db.query(
    `UPDATE webhook_messages SET attempts = attempts + 1, status = $2,
       finished_at = CASE WHEN $2 = 'pending' THEN NULL ELSE now() END,
       audit_id = COALESCE($3, audit_id)
     WHERE id = $1 RETURNING attempts`,
    [a.messageId, status, a.auditId ?? null]
  );
  await db.query(
    `INSERT INTO webhook_attempts(message_id, attempt, http_status, error, latency_ms, result)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [a.messageId, rows[0]?.attempts ?? 0, a.httpStatus, a.error, a.latencyMs, result]
  );
  return result;
}
async function recentAttempts(db, endpointId, limit = 50) {
  const { rows } = await db.query(
    `SELECT a.message_id, m.event_id, a.attempt, a.at, a.http_status, a.error, a.latency_ms, a.result
     FROM webhook_attempts a JOIN webhook_messages m ON m.id = a.message_id
     WHERE m.endpoint_id = $1 ORDER BY a.id DESC LIMIT $2`,
    [endpointId, limit]
  );
  return rows.map((r) => ({
    messageId: r.message_id,
    eventId: r.event_id,
    attempt: Number(r.attempt),
    at: new Date(r.at),
    httpStatus: r.http_status === null ? null : Number(r.http_status),
    error: r.error,
    latencyMs: Number(r.latency_ms),
    result: r.result
  }));
}

// src/events/block-activity.ts
var BLOCKS_KEPT = 8;
var scansOf = /* @__PURE__ */ new WeakMap();
function blockActivity(pool, network, hash) {
  let scans = scansOf.get(pool);
  if (!scans) {
    scans = /* @__PURE__ */ new Map();
    scansOf.set(pool, scans);
  }
  const key = `${network}:${hash}`;
  const known = scans.get(key);
  if (known) return known;
  const scan = fetchAndScan(pool, hash);
  scans.set(key, scan);
  if (scans.size > BLOCKS_KEPT) scans.delete(scans.keys().next().value);
  void scan.then((found) => {
    if (found === null) scans.delete(key);
  });
  return scan;
}
async function fetchAndScan(pool, hash) {
  const out = await pool.batch([{ method: "getblock", params: [hash, jsonNumber(3)] }]);
  if (!out.ok) return null;
  const answer = out.answers[0];
  if ("error" in answer || !isJsonObject(answer.result)) return null;
  const txs = answer.result.tx;
  return Array.isArray(txs) ? scanBlock(txs) : null;
}
function scanBlock(txs) {
  const byScript = /* @__PURE__ */ new Map();
  for (const tx of txs) {
    if (!isJsonObject(tx) || typeof tx.txid !== "string") continue;
    const txid = tx.txid;
    const touch = (script, field, sats) => {
      let list = byScript.get(script);
      if (!list) {
        list = [];
        byScript.set(script, list);
      }
      let entry = list[list.length - 1];
      if (entry?.txid !== txid) {
        entry = { txid, received: 0n, sent: 0n };
        list.push(entry);
      }
      entry[field] += sats;
    };
    for (const output of Array.isArray(tx.vout) ? tx.vout : []) {
      const paid = valueAndScript(output);
      if (paid) touch(paid.script, "received", paid.sats);
    }
    for (const input of Array.isArray(tx.vin) ? tx.vin : []) {
      const spent = isJsonObject(input) ? valueAndScript(input.prevout) : null;
      if (spent) touch(spent.script, "sent", spent.sats);
    }
  }
  return byScript;
}
function valueAndScript(output) {
  if (!isJsonObject(output) || !isJsonNumber(output.value)) return null;
  const spk = output.scriptPubKey;
  if (!isJsonObject(spk) || typeof spk.hex !== "string") return null;
  return { sats: parseAmount(output.value.value), script: spk.hex.toLowerCase() };
}

// src/events/sources.ts
var newBlocks = () => ({
  name: "newBlock",
  translate: async (event) => event
});
function confirmationsOf(pool, txid, until) {
  let last = -1;
  return {
    name: "transactionConfirmations",
    async translate() {
      const out = await pool.batch([
        { method: "getrawtransaction", params: [txid, jsonNumber(1)] }
      ]);
      if (!out.ok) return null;
      const answer = out.answers[0];
      if ("error" in answer) return null;
      const result = answer.result;
      if (!isJsonObject(result)) return null;
      const confirmations = isJsonNumber(result.confirmations) ? Number(result.confirmations.value) : 0;
      if (confirmations === last) return null;
      last = confirmations;
      const blockHash = typeof result.blockhash === "string" ? result.blockhash : null;
      return { txid, confirmations, blockHash };
    },
    last: (c) => c.confirmations >= until
  };
}
function validTargets(targets) {
  return targets.length > 0 && targets.length <= 25 && targets.every((n) => Number.isInteger(n) && n >= 1 && n <= 1008);
}
function feesOf(pool, targets) {
  let last = "";
  return {
    name: "mempoolFees",
    async translate(event) {
      if (event.kind !== "connected") return null;
      const out = await pool.batch(
        targets.map((target) => ({ method: "estimatesmartfee", params: [jsonNumber(target)] }))
      );
      if (!out.ok) return null;
      const estimates = out.answers.map((answer, i) => {
        const rate = "result" in answer && isJsonObject(answer.result) && isJsonNumber(answer.result.feerate) ? Number(parseAmount(answer.result.feerate.value)) / 1e3 : null;
        return { target: targets[i], satPerVbyte: rate };
      });
      const key = JSON.stringify(estimates);
      if (key === last) return null;
      last = key;
      return { height: event.height, estimates };
    }
  };
}
function addressActivityOf(pool, address, network) {
  const script = addressToScript(address, network);
  if (!script) return null;
  const scriptHex = toHex(script);
  return {
    name: "addressActivity",
    async translate(event) {
      const activity = await blockActivity(pool, network, event.hash);
      const transactions = activity?.get(scriptHex);
      if (!transactions || transactions.length === 0) return null;
      return { address, kind: event.kind, height: event.height, hash: event.hash, transactions };
    }
  };
}

// src/webhooks/signing.ts
import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
function newSecret() {
  return `whsec_${randomBytes(32).toString("base64")}`;
}
function signedHeaders(secret, messageId, body, at) {
  return {
    "webhook-id": messageId,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1e3)),
    "webhook-signature": new Webhook(secret).sign(messageId, at, body)
  };
}

// src/webhooks/register.ts
var WEBHOOK_EVENTS = [
  "newBlock",
  "transactionConfirmations",
  "addressActivity",
  "mempoolFees"
];
var Refused = class extends Error {
};
async function registerEndpoint(db, config, policy, owner, input) {
  if (!WEBHOOK_EVENTS.includes(input.event)) {
    throw new Refused(`event: one of ${WEBHOOK_EVENTS.join(", ")}`);
  }
  const event = input.event;
  if (!NETWORK_NAMES.includes(input.network)) {
    throw new Refused(`network: one of ${NETWORK_NAMES.join(", ")}`);
  }
  const network = input.network;
  if (!config.networks.includes(network)) {
    throw new Refused(`network: ${network} is not served by this gateway`);
  }
  const scope = owner.scope;
  if (scope && (scope.backends && !scope.backends.has("gateway") || scope.networks && !scope.networks.has(network) || scope.methods && !scope.methods.has(event))) {
    throw new Refused(`the token's scope does not allow ${event} on ${network} (backend gateway)`);
  }
  if (event !== "newBlock" && !config.upstreams.node?.[network]) {
    throw new Refused(`${event} needs a full node, and ${network} has none here`);
  }
  const args = checkedArgs(event, network, input.args);
  if (input.description && input.description.length > 200) {
    throw new Refused("description: at most 200 characters");
  }
  const refused = await policy.check(input.url);
  if (refused) throw new Refused(refused);
  const held = await countLiveEndpoints(db, owner.accountId);
  if (held >= config.webhooks.endpointsPerAccountMax) {
    throw new Refused(
      `the account holds ${held} endpoints, the most it may (webhooks.endpointsPerAccountMax)`
    );
  }
  const secret = newSecret();
  const endpoint = await createEndpoint(db, {
    accountId: owner.accountId,
    tokenId: owner.tokenId,
    network,
    url: input.url,
    event,
    args,
    description: input.description ?? null,
    secret
  });
  return { endpoint, secret };
}
function checkedArgs(event, network, given) {
  const named = Object.entries(given).filter(([, v]) => v !== void 0 && v !== null).map(([k]) => k);
  const allowed = {
    newBlock: [],
    transactionConfirmations: ["txid", "until"],
    mempoolFees: ["targets"],
    addressActivity: ["address"]
  };
  const extra = named.find((k) => !(allowed[event] ?? []).includes(k));
  if (extra) throw new Refused(`${extra}: not an argument of ${event}`);
  switch (event) {
    case "transactionConfirmations": {
      if (!given.txid || !/^[0-9a-fA-F]{64}$/.test(given.txid)) {
        throw new Refused("txid: 64 hexadecimal characters");
      }
      const until = given.until ?? 6;
      if (!Number.isInteger(until) || until < 1 || until > 1e3) {
        throw new Refused("until: a whole number of confirmations, 1 \u2013 1000");
      }
      return { txid: given.txid.toLowerCase(), until };
    }
    case "addressActivity": {
      if (!given.address || addressToScript(given.address, network) === null) {
        throw new Refused(`address: not a ${network} address`);
      }
      return { address: given.address };
    }
    case "mempoolFees": {
      const targets = given.targets ?? [1, 6, 144];
      if (!validTargets(targets)) throw new Refused("targets: 1 to 25 of 1 \u2013 1008 blocks");
      return { targets };
    }
    default:
      return {};
  }
}

export {
  projectPath,
  cycleAt,
  cycleContaining,
  signedHeaders,
  listEndpoints,
  liveEndpoints,
  endEndpoint,
  createMessage,
  pendingMessage,
  recordAttempt,
  recentAttempts,
  newBlocks,
  confirmationsOf,
  validTargets,
  feesOf,
  addressActivityOf,
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
  latestAudit,
  WEBHOOK_EVENTS,
  Refused,
  registerEndpoint
};
