// Built by `npm run build` from src/ (scripts/build.mjs); do not edit.
import {
  projectPath
} from "./chunk-UUT7BSOM.js";
import {
  RawJsonText,
  fromHex,
  isJsonNumber,
  isJsonObject,
  jsonInteger,
  jsonNumber,
  parseBlockHeader,
  parseJson,
  parseTransaction,
  sha256,
  stringifyJson,
  toHex,
  toHexReversed,
  txToUniv
} from "./chunk-A5KRFPS2.js";
import {
  methodOutOfScope,
  requestOutOfScope
} from "./chunk-BUEEPKH6.js";

// src/errors/codes.ts
var LIST = {
  UNAUTHENTICATED: {
    http: 401,
    jsonRpc: -32001,
    graphql: "UNAUTHENTICATED",
    hasura: ["UNAUTHENTICATED"],
    meaning: "missing, unknown, expired or revoked token"
  },
  ROUTE_NOT_FOUND: {
    http: 404,
    jsonRpc: -32002,
    graphql: "ROUTE_NOT_FOUND",
    hasura: ["ROUTE_NOT_FOUND"],
    meaning: "unknown backend, network or path"
  },
  METHOD_NOT_ALLOWED: {
    http: 405,
    jsonRpc: -32003,
    graphql: "METHOD_NOT_ALLOWED",
    hasura: ["METHOD_NOT_ALLOWED"],
    meaning: "HTTP method the route does not take"
  },
  UNSUPPORTED_MEDIA_TYPE: {
    http: 415,
    jsonRpc: -32004,
    graphql: "UNSUPPORTED_MEDIA_TYPE",
    hasura: ["UNSUPPORTED_MEDIA_TYPE"],
    meaning: "request body of a content type the route does not read"
  },
  PAYLOAD_TOO_LARGE: {
    http: 413,
    jsonRpc: -32005,
    graphql: "PAYLOAD_TOO_LARGE",
    hasura: ["PAYLOAD_TOO_LARGE"],
    meaning: "request body over the size limit"
  },
  INVALID_JSON: {
    http: 400,
    jsonRpc: -32700,
    graphql: "INVALID_JSON",
    hasura: ["invalid-json"],
    meaning: "the request body is not valid JSON"
  },
  BAD_REQUEST: {
    http: 400,
    jsonRpc: -32600,
    graphql: "BAD_REQUEST",
    hasura: ["bad-request"],
    meaning: "valid JSON, but not a request of the protocol (envelope, missing query, notification)"
  },
  METHOD_NOT_FOUND: {
    http: 404,
    jsonRpc: -32601,
    graphql: "METHOD_NOT_FOUND",
    hasura: ["not-supported"],
    meaning: "JSON-RPC method the upstream does not have or the gateway does not serve"
  },
  INVALID_PARAMS: {
    http: 400,
    jsonRpc: -32602,
    graphql: "BAD_USER_INPUT",
    hasura: ["bad-request"],
    meaning: "arguments refused before anything was forwarded (not charged)"
  },
  GRAPHQL_PARSE_FAILED: {
    http: 400,
    jsonRpc: -32600,
    graphql: "GRAPHQL_PARSE_FAILED",
    hasura: ["parse-failed"],
    meaning: "the GraphQL document does not parse"
  },
  GRAPHQL_VALIDATION_FAILED: {
    http: 400,
    jsonRpc: -32600,
    graphql: "GRAPHQL_VALIDATION_FAILED",
    hasura: ["validation-failed"],
    meaning: "the document does not match the schema"
  },
  LIMIT_EXCEEDED: {
    http: 400,
    jsonRpc: -32006,
    graphql: "LIMIT_EXCEEDED",
    hasura: [
      "depth-limit-exceeded",
      "page-size-exceeded",
      "alias-limit-exceeded",
      "complexity-limit-exceeded",
      "token-limit-exceeded"
    ],
    meaning: "over a gateway limit: depth, aliases, tokens, list or page size, complexity, batch"
  },
  NOT_FOUND: {
    http: 404,
    jsonRpc: -32007,
    graphql: "NOT_FOUND",
    hasura: ["not-found"],
    meaning: "the thing asked for does not exist (a transaction, a block)"
  },
  INSUFFICIENT_CREDITS: {
    http: 429,
    jsonRpc: -32010,
    graphql: "INSUFFICIENT_CREDITS",
    hasura: ["INSUFFICIENT_CREDITS"],
    meaning: "balance below the request's estimate; nothing ran"
  },
  RATE_LIMITED: {
    http: 429,
    jsonRpc: -32013,
    graphql: "RATE_LIMITED",
    hasura: ["RATE_LIMITED"],
    meaning: "over a rate or connection limit; nothing ran, nothing charged (Retry-After says when)"
  },
  CREDIT_CAP_REACHED: {
    http: 429,
    jsonRpc: -32014,
    graphql: "CREDIT_CAP_REACHED",
    hasura: ["CREDIT_CAP_REACHED"],
    meaning: "the plan's credit cap per day or per billing cycle is spent; nothing ran (Retry-After says when it resets)"
  },
  SCOPE_BACKEND: {
    http: 403,
    jsonRpc: -32030,
    graphql: "SCOPE_BACKEND",
    hasura: ["SCOPE_BACKEND"],
    meaning: "the token may not call this backend (its scope lists others)"
  },
  SCOPE_NETWORK: {
    http: 403,
    jsonRpc: -32031,
    graphql: "SCOPE_NETWORK",
    hasura: ["SCOPE_NETWORK"],
    meaning: "the token may not call this network (its scope lists others)"
  },
  SCOPE_METHOD: {
    http: 403,
    jsonRpc: -32032,
    graphql: "SCOPE_METHOD",
    hasura: ["SCOPE_METHOD"],
    meaning: "the token may not call this method (its scope lists others); nothing ran"
  },
  SCOPE_ORIGIN: {
    http: 403,
    jsonRpc: -32033,
    graphql: "SCOPE_ORIGIN",
    hasura: ["SCOPE_ORIGIN"],
    meaning: "the token may not be used from this browser origin (its scope lists others)"
  },
  SCOPE_ADDRESS: {
    http: 403,
    jsonRpc: -32034,
    graphql: "SCOPE_ADDRESS",
    hasura: ["SCOPE_ADDRESS"],
    meaning: "the token may not be used from this client address (its scope lists ranges)"
  },
  IDEMPOTENCY_IN_PROGRESS: {
    http: 409,
    jsonRpc: -32011,
    graphql: "IDEMPOTENCY_IN_PROGRESS",
    hasura: ["IDEMPOTENCY_IN_PROGRESS"],
    meaning: "a request with this Idempotency-Key is still being answered; retry later"
  },
  IDEMPOTENCY_KEY_REUSED: {
    http: 422,
    jsonRpc: -32012,
    graphql: "IDEMPOTENCY_KEY_REUSED",
    hasura: ["IDEMPOTENCY_KEY_REUSED"],
    meaning: "this Idempotency-Key was used for a different request (route, network or body)"
  },
  UPSTREAM_ERROR: {
    http: 502,
    jsonRpc: -32023,
    graphql: "UPSTREAM_ERROR",
    hasura: ["UPSTREAM_ERROR"],
    meaning: "the upstream answered with an error of its own (charged); its code is kept apart"
  },
  UPSTREAM_UNAVAILABLE: {
    // 503, not 502: nothing bad came from an upstream; none could serve (down, or its breaker open).
    http: 503,
    jsonRpc: -32020,
    graphql: "UPSTREAM_UNAVAILABLE",
    hasura: ["UPSTREAM_UNAVAILABLE"],
    meaning: "no healthy upstream could be reached (not charged)"
  },
  UPSTREAM_TIMEOUT: {
    http: 504,
    jsonRpc: -32021,
    graphql: "UPSTREAM_TIMEOUT",
    hasura: ["UPSTREAM_TIMEOUT"],
    meaning: "the upstream did not answer in time (not charged)"
  },
  UPSTREAM_BAD_RESPONSE: {
    http: 502,
    jsonRpc: -32022,
    graphql: "UPSTREAM_BAD_RESPONSE",
    hasura: ["UPSTREAM_BAD_RESPONSE"],
    meaning: "the upstream's answer could not be used (not charged)"
  },
  INTERNAL: {
    http: 500,
    jsonRpc: -32603,
    graphql: "INTERNAL",
    hasura: ["INTERNAL"],
    meaning: "a fault of the gateway; details only in its log"
  }
};
var ERROR_CODES = Object.keys(LIST);
var GRAPHQL_CODES = ERROR_CODES.map((c) => LIST[c].graphql);
function httpStatusOf(code) {
  return LIST[code].http;
}
function jsonRpcCodeOf(code) {
  return LIST[code].jsonRpc;
}
function graphqlCodeOf(code) {
  return LIST[code].graphql;
}
function hasuraCodeOf(code, variant) {
  const spellings = LIST[code].hasura;
  return variant !== void 0 && spellings.includes(variant) ? variant : spellings[0];
}
var BY_GRAPHQL = new Map(ERROR_CODES.map((c) => [LIST[c].graphql, c]));
function fromGraphQLCode(code) {
  return typeof code === "string" && BY_GRAPHQL.get(code) || "INTERNAL";
}
var BY_HASURA = /* @__PURE__ */ new Map();
for (const c of ERROR_CODES)
  for (const h of LIST[c].hasura) if (!BY_HASURA.has(h)) BY_HASURA.set(h, c);
function fromHasuraCode(code) {
  return BY_HASURA.get(code) ?? "INTERNAL";
}
function fromRpcRefusal(code) {
  if (code === -32700) return "INVALID_JSON";
  if (code === -32600) return "BAD_REQUEST";
  if (code === -32601) return "METHOD_NOT_FOUND";
  return "INVALID_PARAMS";
}
function gatewayError(code, message, extra = {}) {
  return { code, message, ...extra };
}

// src/http/reply.ts
import { Readable } from "node:stream";

// src/errors/render.ts
function rpcErrorObject(error) {
  return {
    code: jsonRpcCodeOf(error.code),
    message: error.message,
    data: { code: error.code, ...error.data }
  };
}
function graphqlErrorObject(error) {
  return { message: error.message, extensions: { code: graphqlCodeOf(error.code), ...error.data } };
}
function hasuraErrorObject(error, at = {}) {
  return {
    message: error.message,
    extensions: { path: at.path ?? "$", code: hasuraCodeOf(error.code, at.variant), ...error.data }
  };
}
function plainErrorObject(error) {
  return { error: { code: error.code, message: error.message, ...error.data } };
}

// src/http/reply.ts
function sendReply(reply, r) {
  reply.code(r.status);
  if (r.stream) {
    if (r.headers) reply.headers(r.headers);
    return reply.send(openedStream(r.stream));
  }
  if (!r.raw) {
    reply.header("content-type", "application/json");
    if (r.headers) reply.headers(r.headers);
    return reply.send(Buffer.from(stringifyJson(r.body)));
  }
  if (r.headers) reply.headers(r.headers);
  if (r.raw.byteLength === 0 && !reply.hasHeader("content-type")) return reply.send();
  return reply.send(Buffer.from(r.raw.buffer, r.raw.byteOffset, r.raw.byteLength));
}
function openedStream(stream) {
  const reader = stream.getReader();
  let finished = false;
  const body = new Readable({
    read() {
      reader.read().then(
        (chunk) => {
          if (chunk.done) {
            finished = true;
            body.push(null);
          } else body.push(chunk.value);
        },
        (err) => body.destroy(err instanceof Error ? err : new Error(String(err)))
      );
    },
    destroy(err, callback) {
      if (finished) return callback(err);
      reader.cancel().then(
        () => callback(err),
        () => callback(err)
      );
    }
  });
  body.push(Buffer.from(":\n\n"));
  return body;
}
function sendText(reply, status, type, body, headers = {}) {
  return reply.code(status).header("content-type", type).headers(headers).send(Buffer.from(body));
}
function jsonRpcFailure(error, id = null) {
  return {
    status: httpStatusOf(error.code),
    body: { jsonrpc: "2.0", id, error: rpcErrorObject(error) }
  };
}
function plainFailure(error) {
  return { status: httpStatusOf(error.code), body: plainErrorObject(error) };
}
function graphqlFailure(error) {
  return { status: httpStatusOf(error.code), body: { errors: [graphqlErrorObject(error)] } };
}

// src/cache/answer-template.ts
var CONFIRMATIONS_MARK = "\0confirmations\0";
var MARK_TEXT = JSON.stringify(CONFIRMATIONS_MARK);
function fillConfirmations(template, values) {
  const parts = template.split(MARK_TEXT);
  if (parts.length !== values.length + 1) return null;
  let out = parts[0];
  for (let i = 0; i < values.length; i++) out += String(values[i]) + parts[i + 1];
  return out;
}

// src/util/recency.ts
function touch(entries, slot, clock) {
  if (clock.tick - slot.tick < entries.size >> 1) return;
  entries.delete(slot.key);
  entries.set(slot.key, slot);
  slot.tick = ++clock.tick;
}

// src/util/lru.ts
var LruMap = class {
  constructor(entriesMax) {
    this.entriesMax = entriesMax;
    if (!Number.isInteger(entriesMax) || entriesMax < 1) {
      throw new Error(`LruMap: entriesMax must be a positive integer, got ${entriesMax}`);
    }
  }
  entriesMax;
  entries = /* @__PURE__ */ new Map();
  clock = { tick: 0 };
  get size() {
    return this.entries.size;
  }
  get(key) {
    const slot = this.entries.get(key);
    if (slot === void 0) return void 0;
    touch(this.entries, slot, this.clock);
    return slot.value;
  }
  delete(key) {
    return this.entries.delete(key);
  }
  set(key, value) {
    this.entries.delete(key);
    this.entries.set(key, { key, value, tick: ++this.clock.tick });
    if (this.entries.size > this.entriesMax) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
  }
};

// src/util/cancel.ts
var Cancel = class {
  aborted = false;
  reason = void 0;
  listeners = [];
  addEventListener(_type, listener) {
    if (!this.aborted && !this.listeners.includes(listener)) this.listeners.push(listener);
  }
  removeEventListener(_type, listener) {
    const at = this.listeners.indexOf(listener);
    if (at >= 0) this.listeners.splice(at, 1);
  }
  abort(reason) {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.listeners;
    this.listeners = [];
    for (const listener of listeners) {
      try {
        listener();
      } catch (err) {
        queueMicrotask(() => {
          throw err;
        });
      }
    }
  }
};

// src/metering/audit-record.ts
function auditRecord(subject, fields) {
  return {
    requestId: subject.requestId,
    accountId: subject.owner.accountId,
    tokenId: subject.owner.tokenId,
    backend: subject.backendSegment,
    network: subject.network,
    // Made storable (escaped, cut) where every record is written: ledger settle and insertAudit.
    method: fields.method,
    outcome: fields.outcome,
    errorCode: fields.errorCode ?? null,
    upstreamCode: fields.upstreamCode ?? null,
    httpStatus: fields.httpStatus,
    estimatedCc: fields.estimatedCc ?? 0,
    chargedCc: fields.chargedCc ?? 0,
    complexity: fields.complexity ?? null,
    upstream: fields.upstream ?? null,
    durationMs: Date.now() - subject.startedAt,
    cacheHits: fields.cacheHits ?? 0
  };
}

// src/metering/credit-headers.ts
function creditHeaders(estimated, charged, balance) {
  return {
    "x-credits-estimated": String(estimated),
    "x-credits-charged": String(charged),
    "x-credits-balance": String(balance)
  };
}

// src/metering/reserve.ts
async function reserveFor(ctx, estimate) {
  const reservation = await ctx.app.credits.reserve(ctx.owner.accountId, estimate);
  if (reservation.ok) return reservation;
  return {
    ...reservation,
    error: gatewayError(
      "INSUFFICIENT_CREDITS",
      `Insufficient credits: ${reservation.available} CC available, ${reservation.required} CC required`,
      { data: { balance: reservation.available, required: reservation.required } }
    )
  };
}

// src/metering/scope.ts
var CODES = {
  backend: "SCOPE_BACKEND",
  network: "SCOPE_NETWORK",
  method: "SCOPE_METHOD",
  origin: "SCOPE_ORIGIN",
  address: "SCOPE_ADDRESS"
};
function scopeError(scope, what) {
  return gatewayError(CODES[scope], `this token may not be used for ${scope} ${what}`, {
    data: { scope }
  });
}
function checkScope(app, owner, from) {
  const outside = requestOutOfScope(owner.scope ?? null, {
    backend: from.backend,
    network: from.network,
    address: from.source,
    origin: from.origin
  });
  if (!outside) return null;
  const what = {
    backend: from.backend,
    network: from.network,
    method: "",
    origin: from.origin ?? "",
    address: from.source
  }[outside];
  const error = scopeError(outside, what);
  app.metrics.outOfScope.inc({ route: from.backend, scope: outside });
  app.authFailures.record({
    refusal: "forbidden",
    errorCode: error.code,
    source: from.source,
    backendSegment: from.backendSegment,
    network: from.network,
    tokenId: owner.tokenId,
    accountId: owner.accountId
  });
  return error;
}

// src/metering/pipeline.ts
async function meter(ctx, given) {
  const plan = ctx.idempotency?.rerun ? free(given) : given;
  const estimated = plan.calls.reduce((sum, c) => sum + (c.kind === "priced" ? c.price : 0), 0);
  const method = methodOutOfScope(
    ctx.owner.scope ?? null,
    plan.calls.flatMap((c) => c.kind === "priced" ? [c.method] : [])
  );
  if (method !== null) {
    ctx.app.metrics.outOfScope.inc({ route: ctx.backend, scope: "method" });
    return refuseAll(ctx, plan, estimated, scopeError("method", method), "forbidden");
  }
  const capped = await ctx.app.limits.spend(ctx.owner, estimated);
  if (capped) {
    ctx.app.metrics.creditCapped.inc({ route: ctx.backend });
    return refuseAll(ctx, plan, estimated, capped.error, "credit_cap", {
      headers: { "retry-after": String(capped.retryAfterSeconds) }
    });
  }
  const reservation = await reserveFor(ctx, estimated);
  if (!reservation.ok) {
    await ctx.app.limits.refund(ctx.owner, estimated);
    return refuseAll(ctx, plan, estimated, reservation.error, "insufficient_credits", {
      available: reservation.available,
      required: reservation.required
    });
  }
  const { value, outcomes } = await plan.execute();
  let next = 0;
  const records = plan.calls.map(
    (c) => c.kind === "priced" ? settledRecord(ctx, c, outcomes[next++]) : auditRecord(ctx, {
      method: c.method,
      outcome: c.outcome,
      errorCode: c.errorCode,
      upstreamCode: c.upstreamCode ?? null,
      httpStatus: c.httpStatus
    })
  );
  const settling = ctx.app.credits.settle(
    ctx.owner.accountId,
    reservation.claim,
    records,
    ctx.idempotency?.key ?? null
  );
  const prepared = plan.prepare ? await whileSettling(settling, value, plan.prepare) : value;
  const settled = await settling;
  await ctx.app.limits.refund(ctx.owner, estimated - settled.charged);
  return {
    ok: true,
    value: prepared,
    estimated,
    charged: settled.charged,
    available: settled.available,
    auditIds: settled.auditIds,
    headers: creditHeaders(estimated, settled.charged, settled.available)
  };
}
async function whileSettling(settling, value, prepare) {
  settling.catch(() => {
  });
  await new Promise((resolve) => setImmediate(resolve));
  return prepare(value);
}
async function refuseAll(ctx, plan, estimated, error, outcome, known = {}) {
  const status = httpStatusOf(error.code);
  const settled = await ctx.app.credits.settle(
    ctx.owner.accountId,
    { kind: "none" },
    plan.calls.map(
      (c) => auditRecord(
        ctx,
        c.kind === "priced" ? {
          method: c.method,
          outcome,
          errorCode: error.code,
          httpStatus: status,
          estimatedCc: c.price,
          complexity: c.complexity ?? null
        } : {
          method: c.method,
          outcome: c.outcome,
          errorCode: c.errorCode,
          upstreamCode: c.upstreamCode ?? null,
          httpStatus: status
        }
      )
    )
  );
  const available = known.available ?? settled.available;
  return {
    ok: false,
    error,
    estimated,
    available,
    required: known.required ?? estimated,
    auditIds: settled.auditIds,
    headers: { ...creditHeaders(estimated, 0, available), ...known.headers }
  };
}
function free(plan) {
  return {
    ...plan,
    calls: plan.calls.map((c) => c.kind === "priced" ? { ...c, price: 0 } : c)
  };
}
function settledRecord(ctx, call, outcome) {
  if (!outcome || outcome.kind === "failed") {
    const error = outcome?.error;
    if (error) ctx.app.log.warn({ requestId: ctx.requestId, detail: error.detail }, error.message);
    const code = error?.code ?? "INTERNAL";
    return auditRecord(ctx, {
      method: call.method,
      estimatedCc: call.price,
      complexity: call.complexity,
      outcome: "upstream_failure",
      errorCode: code,
      upstreamCode: error?.upstreamCode ?? null,
      httpStatus: httpStatusOf(code)
    });
  }
  const cost = outcome.chargedCc ?? call.price;
  if (cost > call.price) {
    ctx.app.log.error(
      { requestId: ctx.requestId, actual: cost, estimate: call.price },
      "cost estimate exceeded"
    );
  }
  return auditRecord(ctx, {
    method: call.method,
    estimatedCc: call.price,
    outcome: outcome.outcome,
    errorCode: outcome.errorCode ?? null,
    upstreamCode: outcome.upstreamCode ?? null,
    httpStatus: outcome.httpStatus,
    chargedCc: Math.min(cost, call.price),
    upstream: outcome.upstream ?? null,
    complexity: outcome.complexity === void 0 ? call.complexity : outcome.complexity,
    cacheHits: outcome.cacheHits ?? 0
  });
}
async function auditOnly(ctx, records) {
  const settled = await ctx.app.credits.settle(
    ctx.owner.accountId,
    { kind: "none" },
    records.map((r) => auditRecord(ctx, r))
  );
  return {
    available: settled.available,
    auditIds: settled.auditIds,
    headers: creditHeaders(0, 0, settled.available)
  };
}

// src/pricing/prices.ts
function priceOf(config, key, network) {
  const slash = key.indexOf("/");
  const table = priceTable(config, key) ?? (slash > 0 ? priceTable(config, key.slice(0, slash)) : void 0);
  if (!table) return void 0;
  return table[network] ?? table.default;
}
function priceTable(config, key) {
  if (key === "graph" || key === "events" || key === "" || !Object.hasOwn(config.pricing, key)) {
    return void 0;
  }
  return config.pricing[key];
}
function graphPrice(config, network, complexity) {
  const { base, perPoint } = config.pricing.graph;
  return (base[network] ?? base.default) + Math.ceil(complexity * (perPoint[network] ?? perPoint.default));
}
function eventPrice(config, event, network) {
  const table = config.pricing.events[event];
  return table[network] ?? table.default;
}

// src/jsonrpc/json-depth.ts
var JSON_DEPTH_MAX = 512;
function jsonDepthOver(text, max) {
  if (text.length <= max) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 || c === 123) {
      if (++depth > max) return true;
    } else if (c === 93 || c === 125) depth--;
  }
  return false;
}

// src/util/byte-lru.ts
var ByteLru = class {
  constructor(bytesMax, costOf) {
    this.bytesMax = bytesMax;
    this.costOf = costOf;
  }
  bytesMax;
  costOf;
  entries = /* @__PURE__ */ new Map();
  clock = { tick: 0 };
  size = 0;
  stats = { hits: 0, misses: 0, evictions: 0, entries: 0, bytes: 0 };
  get(key) {
    const slot = this.entries.get(key);
    if (slot === void 0) {
      this.stats.misses += 1;
      return void 0;
    }
    touch(this.entries, slot, this.clock);
    this.stats.hits += 1;
    return slot.value;
  }
  has(key) {
    return this.entries.has(key);
  }
  set(key, value) {
    if (this.costOf(value) > this.bytesMax) return;
    this.remove(key);
    this.entries.set(key, { key, value, tick: ++this.clock.tick });
    this.size += this.costOf(value);
    this.fitBudget();
  }
  /**
   * Changes `value` in place with `change` while it is still the entry at `key`, counting what
   * that adds to its cost (older entries make room); false, and nothing changed, when it is not.
   */
  grow(key, value, change) {
    if (this.entries.get(key)?.value !== value) return false;
    const before = this.costOf(value);
    change();
    this.size += this.costOf(value) - before;
    this.fitBudget();
    return true;
  }
  delete(key) {
    this.remove(key);
    this.updateStats();
  }
  /** Drops every entry `doomed` names (a scan: what calls it, a reorganisation, is rare). */
  dropWhere(doomed) {
    let dropped = 0;
    for (const [key, { value }] of this.entries) {
      if (doomed(key, value)) {
        this.remove(key);
        dropped += 1;
      }
    }
    this.stats.evictions += dropped;
    this.updateStats();
    return dropped;
  }
  remove(key) {
    const slot = this.entries.get(key);
    if (slot === void 0) return;
    this.entries.delete(key);
    this.size -= this.costOf(slot.value);
  }
  fitBudget() {
    for (const key of this.entries.keys()) {
      if (this.size <= this.bytesMax) break;
      this.remove(key);
      this.stats.evictions += 1;
    }
    this.updateStats();
  }
  updateStats() {
    this.stats.entries = this.entries.size;
    this.stats.bytes = this.size;
  }
};

// src/jsonrpc/canonical-json.ts
import { LosslessNumber } from "lossless-json";
var DEPTH_MAX = 256;
var NotCanonical = class extends Error {
};
var NOT_CANONICAL = new NotCanonical();
var PLAIN = /[^"\\\u0000-\u001f\ud800-\udfff]*/y;
var QUOTE = 34;
var BACKSLASH = 92;
function scanBatchAnswer(text) {
  try {
    return new Scanner(text).batch();
  } catch (e) {
    if (e instanceof NotCanonical || e instanceof RangeError) return null;
    throw e;
  }
}
function parseCanonical(text) {
  try {
    const scanner = new Scanner(text);
    const value = scanner.read(1);
    return scanner.atEnd() ? value : void 0;
  } catch (e) {
    if (e instanceof NotCanonical || e instanceof RangeError) return void 0;
    throw e;
  }
}
function scalarsOfSpans(text, spans) {
  const members = {};
  for (const { key, start, end } of spans) members[key] = scalarAt(text, start, end);
  return members;
}
function scalarAt(s, start, end) {
  const c = s.charCodeAt(start);
  if (c === QUOTE) return JSON.parse(s.slice(start, end));
  if (c === 116) return true;
  if (c === 102) return false;
  if (c === 110) return null;
  return new LosslessNumber(JSON.parse(`"${s.slice(start, end)}"`));
}
var Scanner = class {
  constructor(s) {
    this.s = s;
  }
  s;
  i = 0;
  batch() {
    this.ws();
    this.expect(91);
    const items = [];
    this.ws();
    if (this.peek() === 93) {
      this.i++;
    } else {
      for (; ; ) {
        this.ws();
        items.push(this.item());
        this.ws();
        const c = this.next();
        if (c === 93) break;
        if (c !== 44) throw NOT_CANONICAL;
      }
    }
    this.ws();
    if (this.i !== this.s.length) throw NOT_CANONICAL;
    return items;
  }
  /** `{"result":…,"error":…,"id":…}` in any order, other members skipped. */
  item() {
    this.expect(123);
    const item = { result: void 0, error: void 0, id: void 0 };
    const keys = [];
    this.ws();
    if (this.peek() === 125) {
      this.i++;
      return item;
    }
    for (; ; ) {
      this.ws();
      const key = this.key(keys);
      this.ws();
      this.expect(58);
      this.ws();
      const start = this.i;
      if (key === "result" && this.peek() === 123) {
        item.scalars = [];
        this.object(1, { base: start, spans: item.scalars });
      } else {
        this.value(1);
      }
      const raw = this.s.slice(start, this.i);
      if (key === "result") item.result = raw;
      else if (key === "error") item.error = raw;
      else if (key === "id") item.id = raw;
      this.ws();
      const c = this.next();
      if (c === 125) return item;
      if (c !== 44) throw NOT_CANONICAL;
    }
  }
  /** The value at the cursor, built (see parseCanonical); the same checks as value(). */
  read(depth) {
    if (depth > DEPTH_MAX) throw NOT_CANONICAL;
    const s = this.s;
    const c = this.peek();
    const start = this.i;
    if (c === QUOTE) {
      this.string();
      return scalarAt(s, start, this.i);
    }
    if (c === 123) {
      this.i++;
      const object = {};
      if (this.peek() === 125) {
        this.i++;
        return object;
      }
      const keys = [];
      for (; ; ) {
        const key = this.key(keys);
        this.expect(58);
        object[key] = this.read(depth + 1);
        const next = this.next();
        if (next === 125) return object;
        if (next !== 44) throw NOT_CANONICAL;
      }
    }
    if (c === 91) {
      this.i++;
      const array = [];
      if (this.peek() === 93) {
        this.i++;
        return array;
      }
      for (; ; ) {
        array.push(this.read(depth + 1));
        const next = this.next();
        if (next === 93) return array;
        if (next !== 44) throw NOT_CANONICAL;
      }
    }
    if (c === 116) this.literal("true");
    else if (c === 102) this.literal("false");
    else if (c === 110) this.literal("null");
    else this.number();
    return scalarAt(s, start, this.i);
  }
  atEnd() {
    return this.i === this.s.length;
  }
  value(depth) {
    if (depth > DEPTH_MAX) throw NOT_CANONICAL;
    const c = this.peek();
    if (c === QUOTE) this.string();
    else if (c === 123) this.object(depth);
    else if (c === 91) this.array(depth);
    else if (c === 116) this.literal("true");
    else if (c === 102) this.literal("false");
    else if (c === 110) this.literal("null");
    else this.number();
  }
  /** `found`: where to note the spans of its scalar members (offsets from `base`). */
  object(depth, found) {
    this.i++;
    if (this.peek() === 125) {
      this.i++;
      return;
    }
    const keys = [];
    for (; ; ) {
      const key = this.key(keys);
      this.expect(58);
      const start = this.i;
      const c = this.peek();
      this.value(depth + 1);
      if (found && c !== 123 && c !== 91) {
        found.spans.push({ key, start: start - found.base, end: this.i - found.base });
      }
      const next = this.next();
      if (next === 125) return;
      if (next !== 44) throw NOT_CANONICAL;
    }
  }
  array(depth) {
    this.i++;
    if (this.peek() === 93) {
      this.i++;
      return;
    }
    for (; ; ) {
      this.value(depth + 1);
      const c = this.next();
      if (c === 93) return;
      if (c !== 44) throw NOT_CANONICAL;
    }
  }
  /** An object key with no escapes, new in its object, that re-rendering keeps in its place. */
  key(seen) {
    if (this.peek() !== QUOTE) throw NOT_CANONICAL;
    const start = this.i + 1;
    const end = this.s.indexOf('"', start);
    if (end < 0) throw NOT_CANONICAL;
    const key = this.s.slice(start, end);
    for (let k = 0; k < key.length; k++) {
      const c = key.charCodeAt(k);
      if (c === BACKSLASH || c < 32 || c >= 55296 && c <= 57343) throw NOT_CANONICAL;
    }
    if (/^[0-9]+$/.test(key) || key === "__proto__" || seen.includes(key)) throw NOT_CANONICAL;
    seen.push(key);
    this.i = end + 1;
    return key;
  }
  /** A string whose escapes JSON.stringify writes the same way: \" \\ \b \f \n \r \t. */
  string() {
    const s = this.s;
    let i = this.i + 1;
    for (; ; ) {
      PLAIN.lastIndex = i;
      PLAIN.test(s);
      i = PLAIN.lastIndex;
      if (i >= s.length) throw NOT_CANONICAL;
      const c = s.charCodeAt(i);
      if (c === QUOTE) break;
      if (c < 32) throw NOT_CANONICAL;
      if (c === BACKSLASH) {
        const e = s.charCodeAt(i + 1);
        if (e !== QUOTE && e !== BACKSLASH && e !== 98 && e !== 102 && e !== 110 && e !== 114 && e !== 116) {
          throw NOT_CANONICAL;
        }
        i += 2;
        continue;
      }
      if (c >= 55296 && c <= 57343) {
        const d = s.charCodeAt(i + 1);
        if (c > 56319 || !(d >= 56320 && d <= 57343)) throw NOT_CANONICAL;
        i += 2;
        continue;
      }
      i++;
    }
    this.i = i + 1;
  }
  /** -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
  number() {
    const s = this.s;
    let i = this.i;
    if (s.charCodeAt(i) === 45) i++;
    const first = s.charCodeAt(i);
    if (first === 48) i++;
    else if (first >= 49 && first <= 57) i = digits(s, i);
    else throw NOT_CANONICAL;
    if (s.charCodeAt(i) === 46) {
      const after = digits(s, i + 1);
      if (after === i + 1) throw NOT_CANONICAL;
      i = after;
    }
    const e = s.charCodeAt(i);
    if (e === 101 || e === 69) {
      i++;
      const sign = s.charCodeAt(i);
      if (sign === 43 || sign === 45) i++;
      const after = digits(s, i);
      if (after === i) throw NOT_CANONICAL;
      i = after;
    }
    this.i = i;
  }
  literal(word) {
    if (!this.s.startsWith(word, this.i)) throw NOT_CANONICAL;
    this.i += word.length;
  }
  /** Whitespace between the envelope's tokens (never inside a value). */
  ws() {
    const s = this.s;
    let i = this.i;
    for (; ; ) {
      const c = s.charCodeAt(i);
      if (c !== 32 && c !== 10 && c !== 13 && c !== 9) break;
      i++;
    }
    this.i = i;
  }
  peek() {
    return this.s.charCodeAt(this.i);
  }
  next() {
    return this.s.charCodeAt(this.i++);
  }
  expect(c) {
    if (this.s.charCodeAt(this.i) !== c) throw NOT_CANONICAL;
    this.i++;
  }
};
function digits(s, from) {
  let i = from;
  for (; ; ) {
    const c = s.charCodeAt(i);
    if (!(c >= 48 && c <= 57)) return i;
    i++;
  }
}

// src/jsonrpc/raw-answer.ts
var RawAnswer = class {
  #kept;
  constructor(kept) {
    this.#kept = kept;
    Object.defineProperty(this, "result", RESULT);
  }
  static kept(answer) {
    return #kept in answer ? answer.#kept : void 0;
  }
};
var RESULT = {
  get() {
    const kept = RawAnswer.kept(this);
    kept.parsed ??= { value: parseCanonical(kept.raw.text) ?? parseJson(kept.raw.text) };
    return kept.parsed.value;
  },
  enumerable: true,
  configurable: true
};
function rawResultAnswer(text, spans) {
  return new RawAnswer({ raw: new RawJsonText(text), spans });
}
function answerForReply(answer) {
  const kept = RawAnswer.kept(answer);
  return kept ? { result: kept.raw } : answer;
}
function resultScalars(answer) {
  const kept = RawAnswer.kept(answer);
  if (!kept?.spans || kept.parsed) return answer.result;
  kept.scalars ??= scalarsOfSpans(kept.raw.text, kept.spans);
  return kept.scalars;
}

// src/upstreams/indexer/hasura/schema.ts
import { readFileSync } from "node:fs";
import { buildSchema } from "graphql";
var SDL_PATH = projectPath("schema", "indexer.graphql");
var cached;
function indexerSchema() {
  cached ??= buildSchema(readFileSync(SDL_PATH, "utf8"));
  return cached;
}

// src/upstreams/indexer/hasura/hasura-error.ts
function hasuraError(message, path = "$", code = "validation-failed", extra = {}) {
  return { message, extensions: { path, code, ...extra } };
}
function englishOr(items) {
  if (items.length <= 2) return items.join(" or ");
  return `${items.slice(0, -1).join(", ")}, or ${items[items.length - 1]}`;
}

// src/upstreams/indexer/hasura/check.ts
import {
  GraphQLError,
  getArgumentValues,
  getNamedType as getNamedType2,
  getNullableType,
  getVariableValues,
  isInputObjectType as isInputObjectType2,
  isListType,
  Kind as Kind4,
  NoUnusedVariablesRule,
  parse,
  specifiedRules,
  validate
} from "graphql";

// src/gql/selection.ts
import { collectFields, collectSubFields } from "@graphql-tools/utils";
import {
  getNamedType,
  isObjectType,
  Kind
} from "graphql";
function walkSelections(schema, document, variables, root, at, visit) {
  const fragments = {};
  for (const def of document.definitions) {
    if (def.kind === Kind.FRAGMENT_DEFINITION) fragments[def.name.value] = def;
  }
  const walk = (fields, parentType, at2) => {
    for (const [responseKey, nodes] of fields) {
      const node = nodes[0];
      if (!node) continue;
      const def = parentType.getFields()[node.name.value];
      const inner = visit({ responseKey, nodes, node, parentType, def }, at2);
      const type2 = def && getNamedType(def.type);
      if (inner === void 0 || !isObjectType(type2)) continue;
      walk(collectSubFields(schema, fragments, variables, type2, nodes).fields, type2, inner);
    }
  };
  const { type, selectionSet } = root;
  walk(collectFields(schema, fragments, variables, type, selectionSet).fields, type, at);
}

// src/upstreams/indexer/hasura/paths.ts
import {
  Kind as Kind2
} from "graphql";
function hasuraPaths(document, operation) {
  const paths = /* @__PURE__ */ new Map();
  const fragments = /* @__PURE__ */ new Map();
  for (const def of document.definitions) {
    if (def.kind === Kind2.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
  }
  const expanding = /* @__PURE__ */ new Set();
  const value = (node, path) => {
    paths.set(node, path);
    if (node.kind === Kind2.LIST) {
      for (const [i, v] of node.values.entries()) value(v, `${path}[${i}]`);
    }
    if (node.kind === Kind2.OBJECT) {
      for (const field of node.fields) {
        paths.set(field, `${path}.${field.name.value}`);
        value(field.value, `${path}.${field.name.value}`);
      }
    }
  };
  const selections = (set, path) => {
    paths.set(set, `${path}.selectionSet`);
    for (const selection of set.selections) {
      if (selection.kind === Kind2.FIELD) {
        const fieldPath = `${path}.selectionSet.${selection.name.value}`;
        paths.set(selection, fieldPath);
        for (const arg of selection.arguments ?? []) {
          paths.set(arg, `${fieldPath}.args.${arg.name.value}`);
          value(arg.value, `${fieldPath}.args.${arg.name.value}`);
        }
        if (selection.selectionSet) selections(selection.selectionSet, fieldPath);
      } else if (selection.kind === Kind2.INLINE_FRAGMENT) {
        paths.set(selection, path);
        selections(selection.selectionSet, path);
      } else {
        paths.set(selection, path);
        const name = selection.name.value;
        const fragment = fragments.get(name);
        if (fragment && !expanding.has(name)) {
          expanding.add(name);
          if (!paths.has(fragment)) paths.set(fragment, path);
          selections(fragment.selectionSet, path);
          expanding.delete(name);
        }
      }
    }
  };
  paths.set(operation, "$");
  for (const variable of operation.variableDefinitions ?? []) {
    paths.set(variable, `$.variableValues.${variable.variable.name.value}`);
  }
  selections(operation.selectionSet, "$");
  return paths;
}

// src/upstreams/indexer/hasura/validation-errors.ts
import {
  isEnumType,
  isInputObjectType,
  Kind as Kind3
} from "graphql";
function toHasuraError(error, schema, paths) {
  const node = error.nodes?.[0];
  const at = {
    schema,
    path: (node && paths.get(node)) ?? "$",
    node,
    second: error.nodes?.[1] ? paths.get(error.nodes[1]) : void 0
  };
  for (const [pattern, translate] of TRANSLATIONS) {
    const match = error.message.match(pattern);
    if (match) {
      const translated = translate(match, at);
      if (translated) return translated;
    }
  }
  return hasuraError(error.message, at.path);
}
var givenAt = (at) => at.node ? describeValue(at.node) : "a value";
var TRANSLATIONS = [
  [
    /^Cannot query field "([^"]+)" on type "([^"]+)"/,
    ([, field, type], at) => hasuraError(`field "${field}" not found in type: '${type}'`, at.path)
  ],
  [
    /^Unknown argument "([^"]+)" on field "[^".]+\.([^"]+)"/,
    // Hasura reports an unknown argument at the field that was given it.
    ([, arg, field], at) => hasuraError(
      `"${field}" has no argument named "${arg}"`,
      at.path.replace(/\.args\.[^.]+$/, "")
    )
  ],
  [
    /^Field "([^"]+)" is not defined by type "([^"]+)"/,
    ([, field, type], at) => hasuraError(`field "${field}" not found in type: '${type}'`, at.path)
  ],
  [
    /^Field "[^"]+" argument "([^"]+)" of type "[^"]+" is required/,
    ([, arg], at) => hasuraError(`missing required field "${arg}"`, `${at.path}.args.${arg}`)
  ],
  [
    /^Field "[^".]+\.([^"]+)" of required type "[^"]+" was not provided/,
    ([, field], at) => hasuraError(`missing required field "${field}"`, `${at.path}.${field}`)
  ],
  [
    /^Field "[^"]+" must not have a selection since type/,
    // graphql-js points at the selection set; Hasura at the field that should have none.
    (_, at) => hasuraError(
      "unexpected subselection set for non-object field",
      at.path.replace(/\.selectionSet$/, "")
    )
  ],
  [
    /^Field "[^"]+" of type "([^"]+)" must have a selection of subfields/,
    ([, type], at) => hasuraError(`missing selection set for "${namedType(type)}"`, `${at.path}.selectionSet`)
  ],
  [
    /^Variable "\$([^"]+)" of type "([^"]+)" used in position expecting type "([^"]+)"/,
    ([, name, declared, expected], at) => hasuraError(
      `variable "${name}" is declared as ${declared}, but used where ${expected} is expected`,
      at.second ?? at.path
    )
  ],
  [
    /^Variable "\$([^"]+)" is not defined/,
    ([, name], at) => hasuraError(`unbound variable "${name}"`, at.path)
  ],
  [
    /^Value "([^"]+)" does not exist in "([^"]+)" enum/,
    ([, value, type], at) => enumMismatch(at.schema, type, `"${value}"`, at.path)
  ],
  [
    /^(?:Enum "(\w+)"|(\w+)) cannot represent /,
    ([, enumType, scalar], at) => typeMismatch(at.schema, enumType ?? scalar, givenAt(at), at.path)
  ],
  [
    /^Expected value of type "([^"]+)", found /,
    ([, expected], at) => {
      if (!at.node) return null;
      if (at.node.kind === Kind3.NULL && expected.endsWith("!")) {
        return hasuraError(`null value found for non-nullable type: ${expected}`, at.path);
      }
      return typeMismatch(at.schema, namedType(expected), givenAt(at), at.path);
    }
  ]
];
function typeMismatch(schema, typeName, given, path) {
  const type = schema.getType(typeName);
  if (isEnumType(type) && given.startsWith('"')) return enumMismatch(schema, typeName, given, path);
  return hasuraError(
    `expected ${expectedOf(schema, typeName)} for type "${typeName}", but found ${given}`,
    path
  );
}
function enumMismatch(schema, typeName, given, path) {
  const type = schema.getType(typeName);
  const values = isEnumType(type) ? type.getValues().map((v) => `"${v.name}"`) : [];
  return hasuraError(
    `expected one of the values ${englishOr(values)} for type "${typeName}", but found ${given}`,
    path
  );
}
function expectedOf(schema, typeName) {
  switch (typeName) {
    case "Int":
      return "a 32-bit integer";
    case "Float":
      return "a float";
    case "Boolean":
      return "a boolean";
    case "String":
    case "ID":
      return "a string";
  }
  const type = schema.getType(typeName);
  if (isEnumType(type)) return "an enum value";
  if (isInputObjectType(type)) return "an object";
  return "a scalar";
}
function describeValue(node) {
  switch (node.kind) {
    case Kind3.INT:
      return "an integer";
    case Kind3.FLOAT:
      return "a float";
    case Kind3.STRING:
      return "a string";
    case Kind3.BOOLEAN:
      return "a boolean";
    case Kind3.NULL:
      return "null";
    case Kind3.ENUM:
      return "an enum value";
    case Kind3.LIST:
      return "a list";
    case Kind3.OBJECT:
      return "an object";
    case Kind3.VARIABLE:
      return `variable "${node.name.value}"`;
  }
}
function describeJson(value) {
  if (value === null || value === void 0) return "null";
  if (Array.isArray(value)) return "a list";
  switch (typeof value) {
    case "boolean":
      return "a boolean";
    case "string":
      return "a string";
    case "number":
      return "a number";
    default:
      return "an object";
  }
}
function namedType(printed) {
  return printed.replace(/[[\]!]/g, "");
}

// src/upstreams/indexer/hasura/check.ts
var TOKENS_OVER = /Document contains more th(?:an|at) \d+ tokens/;
var RULES = specifiedRules.filter((rule) => rule !== NoUnusedVariablesRule);
function checkGraphQuery(schema, request, tokensMax) {
  let document;
  try {
    document = parse(request.query, tokensMax === void 0 ? {} : { maxTokens: tokensMax });
  } catch (err) {
    if (err instanceof GraphQLError && tokensMax !== void 0 && TOKENS_OVER.test(err.message)) {
      return {
        ok: false,
        error: hasuraErrorObject(
          gatewayError(
            "LIMIT_EXCEEDED",
            `the query has more than ${tokensMax} tokens; the limit is ${tokensMax}: ask for fewer heights or fields, or send several queries`
          ),
          { path: "$.query", variant: "token-limit-exceeded" }
        )
      };
    }
    if (err instanceof GraphQLError) {
      return {
        ok: false,
        error: hasuraError("not a valid graphql query", "$.query", "parse-failed")
      };
    }
    throw err;
  }
  const operations = document.definitions.filter(
    (d) => d.kind === Kind4.OPERATION_DEFINITION
  );
  let operation;
  if (request.operationName !== void 0) {
    operation = operations.find((o) => o.name?.value === request.operationName);
    if (!operation) {
      return {
        ok: false,
        error: hasuraError(`no such operation found in the document: "${request.operationName}"`)
      };
    }
  } else if (operations.length === 1) {
    operation = operations[0];
  } else {
    return {
      ok: false,
      error: hasuraError(
        "exactly one operation has to be present in the document when operationName is not specified"
      )
    };
  }
  if (!operation) return { ok: false, error: hasuraError("no operation") };
  if (operation.operation !== "query") {
    return { ok: false, error: hasuraError(`no ${operation.operation}s exist`) };
  }
  const invalid = validate(schema, document, RULES, { maxErrors: 1 })[0];
  if (invalid) {
    return { ok: false, error: toHasuraError(invalid, schema, hasuraPaths(document, operation)) };
  }
  const declared = new Set((operation.variableDefinitions ?? []).map((v) => v.variable.name.value));
  const unexpected = Object.keys(request.variables).filter((k) => !declared.has(k));
  if (unexpected.length > 0) {
    return {
      ok: false,
      error: hasuraError(`unexpected variables in variableValues: ${unexpected.join(", ")}`)
    };
  }
  const coerced = getVariableValues(
    schema,
    operation.variableDefinitions ?? [],
    request.variables,
    {
      maxErrors: 1
    }
  );
  if (coerced.errors)
    return { ok: false, error: variableError(schema, operation, request, coerced.errors[0]) };
  try {
    const fields = selectedFields(schema, document, operation, coerced.coerced);
    return { ok: true, query: { document, operation, variableValues: coerced.coerced, fields } };
  } catch (err) {
    if (err instanceof HasuraFailure) return { ok: false, error: err.error };
    throw err;
  }
}
function selectedField(field, at) {
  return {
    ...at,
    responseKey: field.responseKey,
    aliased: field.node.alias !== void 0,
    introspection: at.name.startsWith("__"),
    args: {},
    children: []
  };
}
var HasuraFailure = class extends Error {
  constructor(error) {
    super(error.message);
    this.error = error;
  }
  error;
};
function selectedFields(schema, document, operation, variables) {
  const fields = [];
  const root = { type: schema.getQueryType(), selectionSet: operation.selectionSet };
  walkSelections(
    schema,
    document,
    variables,
    root,
    { path: "$", depth: 1, out: fields },
    (f, at) => {
      const name = f.node.name.value;
      const path = `${at.path}.selectionSet.${name}`;
      const list = f.def ? isListType(getNullableType(f.def.type)) : false;
      const field = selectedField(f, {
        name,
        parentType: f.parentType.name,
        path,
        depth: at.depth,
        list
      });
      at.out.push(field);
      if (!f.def) return void 0;
      const refused = refusedArguments(schema, f.def, f.node, variables, path);
      if (refused) throw new HasuraFailure(refused);
      field.args = getArgumentValues(f.def, f.node, variables);
      return { path, depth: at.depth + 1, out: field.children };
    }
  );
  return fields;
}
function refusedArguments(schema, def, selection, variables, path) {
  const foundNull = (type, at) => {
    const t = getNullableType(type);
    if (isListType(t)) return hasuraError("expected a list, but found null", at);
    return typeMismatch(schema, getNamedType2(t).name, "null", at);
  };
  const inJson = (value, type, at) => {
    if (value === null || value === void 0) return foundNull(type, at);
    const t = getNullableType(type);
    if (isListType(t)) {
      if (!Array.isArray(value)) return inJson(value, t.ofType, `${at}[0]`);
      for (const [i, v] of value.entries()) {
        const problem = inJson(v, t.ofType, `${at}[${i}]`);
        if (problem) return problem;
      }
    } else if (isInputObjectType2(t) && typeof value === "object") {
      const defs = t.getFields();
      for (const [key, v] of Object.entries(value)) {
        const fieldDef = defs[key];
        const problem = fieldDef ? inJson(v, fieldDef.type, `${at}.${key}`) : null;
        if (problem) return problem;
      }
    }
    return null;
  };
  const inAst = (node, type, at) => {
    if (node.kind === Kind4.VARIABLE) return inJson(variables[node.name.value], type, at);
    if (node.kind === Kind4.NULL) return foundNull(type, at);
    const t = getNullableType(type);
    if (isListType(t)) {
      if (node.kind !== Kind4.LIST) return inAst(node, t.ofType, `${at}[0]`);
      for (const [i, v] of node.values.entries()) {
        const problem = inAst(v, t.ofType, `${at}[${i}]`);
        if (problem) return problem;
      }
    } else if (isInputObjectType2(t) && node.kind === Kind4.OBJECT) {
      const defs = t.getFields();
      for (const f of node.fields) {
        const fieldDef = defs[f.name.value];
        const problem = fieldDef ? inAst(f.value, fieldDef.type, `${at}.${f.name.value}`) : null;
        if (problem) return problem;
      }
    }
    return null;
  };
  for (const arg of selection.arguments ?? []) {
    const argDef = def.args.find((a) => a.name === arg.name.value);
    const problem = argDef ? inAst(arg.value, argDef.type, `${path}.args.${arg.name.value}`) : null;
    if (problem) return problem;
  }
  const args = getArgumentValues(def, selection, variables);
  for (const key of ["limit", "offset"]) {
    const n = args[key];
    if (typeof n === "number" && n < 0) {
      return hasuraError(
        'expected a non-negative integer for type "Int", but found a negative integer',
        `${path}.args.${key}`
      );
    }
  }
  return null;
}
function variableError(schema, operation, request, error) {
  const m = error.message;
  const name = m.match(/^Variable "\$([^"]+)"/)?.[1];
  if (!name) return hasuraError(m);
  const path = `$.variableValues.${name}`;
  if (/of required type "[^"]+" was not provided/.test(m)) {
    return hasuraError(`expecting a value for non-nullable variable: "${name}"`);
  }
  const nonNull = m.match(/of non-null type "([^"]+)" must not be null/);
  if (nonNull) return hasuraError(`null value found for non-nullable type: ${nonNull[1]}`, path);
  const def = operation.variableDefinitions?.find((v) => v.variable.name.value === name);
  const type = def?.type.kind === Kind4.NON_NULL_TYPE ? def.type.type : def?.type;
  if (type?.kind === Kind4.NAMED_TYPE && / got invalid value /.test(m) && !/ at "/.test(m)) {
    return typeMismatch(schema, type.name.value, describeJson(request.variables[name]), path);
  }
  return hasuraError(m, path);
}

// src/jsonrpc/decoded-tx.ts
function decodedTx(tx, network, position, opts) {
  const result = { ...txToUniv(tx, { network }) };
  if (position) {
    result.blockhash = position.blockhash;
    result.confirmations = position.confirmations;
    result.time = position.blocktime;
    result.blocktime = position.blocktime;
    if (opts.blockheight) result.blockheight = position.height;
  }
  return result;
}
function decodedTxBaseText(tx, network) {
  return stringifyJson(txToUniv(tx, { network }));
}
function decodedTxFromBase(base, position, opts) {
  const block = `"blockhash":${JSON.stringify(position.blockhash)},"confirmations":${position.confirmations},"time":${position.blocktime},"blocktime":${position.blocktime}` + (opts.blockheight ? `,"blockheight":${position.height}` : "");
  return new RawJsonText(`${base.slice(0, -1)},${block}}`);
}
function readTxHex(hex) {
  try {
    return /^([0-9a-fA-F]{2})+$/.test(hex) ? parseTransaction(fromHex(hex)) : null;
  } catch {
    return null;
  }
}

// src/cache/from-core.ts
async function rememberFromCore(store, pool, network, answers) {
  const guard = store.guard(network);
  if (!guard || !store.enabled) return;
  const candidates = [];
  for (const { txid, result } of answers) {
    if (!isJsonObject(result)) continue;
    const { hex, blockhash, confirmations, blocktime } = result;
    const conf = jsonInteger(confirmations);
    const time = jsonInteger(blocktime);
    if (typeof hex !== "string" || typeof blockhash !== "string") continue;
    if (conf === void 0 || time === void 0 || conf < store.minConfirmations) continue;
    if (store.memory.has(network, txid)) continue;
    const tx = readTxHex(hex);
    if (tx?.txid !== txid) continue;
    candidates.push({ txid, bytes: tx.bytes, blockhash, confirmations: conf, blocktime: time });
  }
  if (candidates.length === 0) return;
  const tip = await guard.tip();
  if (tip === null) return;
  const heights = [...new Set(candidates.map((c) => tip - c.confirmations + 1))];
  const out = await pool.batch(
    heights.map((h) => ({ method: "getblockhash", params: [jsonNumber(h)] }))
  );
  if (!out.ok) return;
  const hashAt = /* @__PURE__ */ new Map();
  heights.forEach((h, i) => {
    const answer = out.answers[i];
    if (answer && "result" in answer) hashAt.set(h, answer.result);
  });
  for (const c of candidates) {
    const height = tip - c.confirmations + 1;
    if (hashAt.get(height) !== c.blockhash) continue;
    store.remember(network, c.txid, {
      bytes: c.bytes,
      blockhash: c.blockhash,
      height,
      blocktime: c.blocktime
    });
  }
}

// src/metering/context.ts
function electrumTxSource(app, network) {
  return {
    network,
    pool: app.electrum.get(network),
    cache: app.txCache,
    minConfirmations: app.config.cache.minConfirmations
  };
}

// src/bitcoin/scripthash.ts
function electrumScripthash(scriptPubKey) {
  return toHexReversed(sha256(scriptPubKey));
}
function isUnspendable(scriptPubKey) {
  return scriptPubKey[0] === 106;
}

// src/jsonrpc/electrum-params.ts
var BAD_REQUEST = 1;
var DAEMON_ERROR = 2;
var INVALID_ARGS = -32602;
function bindArgs(method, params, required, optional) {
  const min = required.length;
  const max = min + optional.length;
  const invalid = (message) => ({ code: INVALID_ARGS, message });
  if (Array.isArray(params)) {
    const s = params.length === 1 ? "" : "s";
    if (params.length < min) {
      return invalid(
        `${params.length} argument${s} passed to method "${method}" but it requires ${min}`
      );
    }
    if (params.length > max) {
      return invalid(
        `${params.length} argument${s} passed to method ${method} taking at most ${max}`
      );
    }
    return params;
  }
  const names = [...required, ...optional];
  const missing = required.filter((n) => !Object.hasOwn(params, n));
  if (missing.length > 0) {
    const s = missing.length === 1 ? "" : "s";
    return invalid(`method "${method}" requires parameter${s} ${quoteNames(missing)}`);
  }
  const excess = Object.keys(params).filter((n) => !names.includes(n));
  if (excess.length > 0) {
    const s = excess.length === 1 ? "" : "s";
    return invalid(`method "${method}" does not take parameter${s} ${quoteNames(excess)}`);
  }
  return names.map((n) => Object.hasOwn(params, n) ? params[n] : void 0);
}
function quoteNames(names) {
  return [...names].sort().map((n) => `"${n}"`).join(", ");
}
function hash32Hex(value) {
  if (typeof value !== "string") return null;
  let hex = "";
  let i = 0;
  while (i < value.length) {
    if (/\s/.test(value[i])) i += 1;
    else if (/^[0-9a-fA-F]{2}$/.test(value.slice(i, i + 2))) {
      hex += value.slice(i, i + 2).toLowerCase();
      i += 2;
    } else return null;
  }
  return hex.length === 64 ? hex : null;
}
function isPyBool(value) {
  if (typeof value === "boolean") return true;
  if (!isJsonNumber(value)) return false;
  const n = Number(value.value);
  return n === 0 || n === 1;
}
function pyBoolValue(value) {
  return value === true || isJsonNumber(value) && Number(value.value) === 1;
}

// src/upstreams/electrum/headers.ts
async function headerAt(pool, height) {
  const out = await pool.request("blockchain.block.header", [jsonNumber(height)]);
  if (!out.ok || !("result" in out.answer) || typeof out.answer.result !== "string") return null;
  return headerOf(out.answer.result);
}
function headerOf(hex) {
  return /^[0-9a-fA-F]{160}$/.test(hex) ? parseBlockHeader(fromHex(hex)) : null;
}

// src/upstreams/electrum/transaction.ts
var METHOD = "blockchain.transaction.get";
async function electrumTransaction(source, txHash, locate) {
  const { pool, cache, minConfirmations } = source;
  if (!pool) {
    return failure(gatewayError("UPSTREAM_UNAVAILABLE", "no Electrum server for this network"));
  }
  const txid = /^[0-9a-fA-F]{64}$/.test(txHash) ? txHash.toLowerCase() : null;
  if (txid) {
    const cached2 = await fromCache(source, pool, txid, locate);
    if (cached2) return cached2;
  }
  const out = await pool.request(METHOD, [txHash, true]);
  if (!out.ok) return failure(out.error);
  if ("error" in out.answer) {
    if (out.answer.error.code === DAEMON_ERROR) {
      return { kind: "refused", error: out.answer.error, upstream: out.upstream };
    }
    return withoutVerbose(source, pool, txHash, txid, locate, out.answer.error.message);
  }
  const bad = (why) => failure(
    gatewayError("UPSTREAM_BAD_RESPONSE", "the Electrum server sent an answer we cannot read", {
      detail: `${out.upstream}: ${why}`
    })
  );
  const result = out.answer.result;
  if (!isJsonObject(result) || typeof result.hex !== "string") {
    return bad("no hex in the verbose answer");
  }
  const tx = readTxHex(result.hex);
  if (!tx) return bad("hex is not a transaction");
  if (txid && tx.txid !== txid) return bad(`asked for ${txid}, got ${tx.txid}`);
  const found = (position2, located) => parsed(tx, position2, located, out.upstream);
  if (typeof result.blockhash !== "string") return found(null, true);
  const confirmations = jsonInteger(result.confirmations);
  const deep = confirmations !== void 0 && confirmations >= minConfirmations;
  if (!locate && !(deep && txid && cache.enabled)) return found(null, false);
  const position = await locateBlock(
    pool,
    result.blockhash,
    confirmations,
    jsonInteger(result.blockheight)
  );
  if (!position) {
    if (!locate) return found(null, false);
    return bad(`cannot find the height of block ${result.blockhash}`);
  }
  if (deep && txid) cache.remember(source.network, txid, { ...position, bytes: tx.bytes });
  return found(position, true);
}
async function fromCache(source, pool, txid, locate) {
  const cached2 = await source.cache.lookup(source.network, [txid]);
  const entry = cached2?.found[0];
  if (!entry) return null;
  let tx;
  const hit = (position) => ({
    kind: "tx",
    tx: () => {
      tx ??= parseTransaction(entry.bytes);
      return tx;
    },
    hex: () => toHex(entry.bytes),
    position,
    located: position !== null,
    upstream: "cache"
  });
  if (!locate) return hit(null);
  const tip = pool.tip();
  if (!tip || tip.height < entry.height) return null;
  return hit({ ...entry, confirmations: tip.height - entry.height + 1 });
}
function parsed(tx, position, located, upstream) {
  return { kind: "tx", tx: () => tx, hex: () => tx.hex, position, located, upstream };
}
async function locateBlock(pool, blockhash, confirmations, blockheight) {
  const tip = pool.tip();
  const expected = blockheight ?? (tip && confirmations !== void 0 ? tip.height - confirmations + 1 : void 0);
  if (expected === void 0) return null;
  for (const height of [expected, expected + 1, expected - 1]) {
    if (height < 0) continue;
    const header = await headerAt(pool, height);
    if (header?.hash !== blockhash.toLowerCase()) continue;
    const count = confirmations ?? (tip ? tip.height - height + 1 : void 0);
    if (count === void 0) return null;
    return { blockhash: header.hash, height, blocktime: header.time, confirmations: count };
  }
  return null;
}
async function withoutVerbose(source, pool, txHash, txid, locate, refusal) {
  const out = await pool.request(METHOD, [txHash, false]);
  if (!out.ok) return failure(out.error);
  if ("error" in out.answer) {
    return { kind: "refused", error: out.answer.error, upstream: out.upstream };
  }
  const bad = (why) => failure(
    gatewayError("UPSTREAM_BAD_RESPONSE", "the Electrum server sent an answer we cannot read", {
      detail: `${out.upstream}: ${why} (verbose refused: ${refusal.slice(0, 200)})`
    })
  );
  const hex = out.answer.result;
  const tx = typeof hex === "string" ? readTxHex(hex) : null;
  if (!tx || txid && tx.txid !== txid) return bad(`the hex is not transaction ${txid ?? txHash}`);
  if (!locate) return parsed(tx, null, false, out.upstream);
  const height = await historyHeight(pool, tx);
  if (height === null) return bad(`${tx.txid} is in none of its scripts' histories`);
  if (height <= 0) return parsed(tx, null, true, out.upstream);
  const tip = pool.tip();
  const header = await headerAt(pool, height);
  if (!tip || !header || tip.height < height) return bad(`no header at height ${height}`);
  const position = {
    blockhash: header.hash,
    height,
    blocktime: header.time,
    confirmations: tip.height - height + 1
  };
  if (position.confirmations >= source.minConfirmations) {
    source.cache.remember(source.network, tx.txid, { ...position, bytes: tx.bytes });
  }
  return parsed(tx, position, true, out.upstream);
}
var HISTORY_TRIES = 3;
async function historyHeight(pool, tx) {
  const scripts = tx.outputs.map((o) => o.scriptPubKey).filter((s) => !isUnspendable(s)).slice(0, HISTORY_TRIES);
  for (const script of scripts) {
    const out = await pool.request("blockchain.scripthash.get_history", [
      electrumScripthash(script)
    ]);
    if (!out.ok || !("result" in out.answer) || !Array.isArray(out.answer.result)) continue;
    for (const item of out.answer.result) {
      if (isJsonObject(item) && item.tx_hash === tx.txid) {
        const height = jsonInteger(item.height);
        if (height !== void 0) return height;
      }
    }
  }
  return null;
}
function failure(error) {
  return { kind: "failure", error };
}

// src/pricing/graph-complexity.ts
function graphComplexity(fields, settings) {
  let total = 0;
  const visit = (field, multiplier) => {
    if (field.introspection) return;
    const weight = settings.weights[`${field.parentType}.${field.name}`] ?? settings.weights.default;
    total += field.depth * weight * multiplier;
    const inner = field.list ? multiplier * listSize(field, settings.listSizeDefault) : multiplier;
    for (const child of field.children) visit(child, inner);
  };
  for (const field of fields) visit(field, 1);
  return total;
}
function listSize(field, listSizeDefault) {
  const bounds = [];
  const limit = field.args.limit;
  if (typeof limit === "number") bounds.push(limit);
  const range = heightRangeSize(field.args.where);
  if (range !== void 0) bounds.push(range);
  return bounds.length > 0 ? Math.min(...bounds) : listSizeDefault;
}
function heightRangeSize(where) {
  let low = Number.NEGATIVE_INFINITY;
  let high = Number.POSITIVE_INFINITY;
  let count = Number.POSITIVE_INFINITY;
  const collect = (exp) => {
    if (typeof exp !== "object" || exp === null) return;
    const w = exp;
    const h = w.height;
    if (h) {
      if (typeof h._gte === "number") low = Math.max(low, h._gte);
      if (typeof h._gt === "number") low = Math.max(low, h._gt + 1);
      if (typeof h._lte === "number") high = Math.min(high, h._lte);
      if (typeof h._lt === "number") high = Math.min(high, h._lt - 1);
      if (typeof h._eq === "number") count = Math.min(count, 1);
      if (Array.isArray(h._in)) count = Math.min(count, new Set(h._in).size);
    }
    if (Array.isArray(w._and)) for (const part of w._and) collect(part);
  };
  collect(where);
  const range = Number.isFinite(low) && Number.isFinite(high) ? Math.max(0, high - low + 1) : Number.POSITIVE_INFINITY;
  const size = Math.min(range, count);
  return Number.isFinite(size) ? size : void 0;
}

// src/upstreams/indexer/hasura/limits.ts
function checkGraphLimits(fields, limits) {
  let aliases = 0;
  const visit = (field) => {
    if (field.introspection) return null;
    if (field.aliased) aliases += 1;
    if (field.depth > limits.depthMax) {
      return limitError(
        `the query is nested ${field.depth} levels deep; the limit is ${limits.depthMax}`,
        field.path,
        "depth-limit-exceeded"
      );
    }
    const limit = field.args.limit;
    if (typeof limit === "number" && limit > limits.pageSizeMax) {
      return limitError(
        `limit ${limit} is above the maximum page size of ${limits.pageSizeMax} rows; ask for at most ${limits.pageSizeMax} and page with offset or a height cursor`,
        `${field.path}.args.limit`,
        "page-size-exceeded"
      );
    }
    for (const child of field.children) {
      const problem = visit(child);
      if (problem) return problem;
    }
    return null;
  };
  for (const field of fields) {
    const problem = visit(field);
    if (problem) return problem;
  }
  if (aliases > limits.aliasesMax) {
    return limitError(
      `the query uses ${aliases} aliases; the limit is ${limits.aliasesMax}`,
      "$",
      "alias-limit-exceeded"
    );
  }
  return null;
}
function limitError(message, path, variant) {
  return hasuraErrorObject(gatewayError("LIMIT_EXCEEDED", message), { path, variant });
}

export {
  httpStatusOf,
  graphqlCodeOf,
  fromGraphQLCode,
  fromHasuraCode,
  fromRpcRefusal,
  gatewayError,
  rpcErrorObject,
  hasuraErrorObject,
  sendReply,
  sendText,
  jsonRpcFailure,
  plainFailure,
  graphqlFailure,
  ByteLru,
  CONFIRMATIONS_MARK,
  fillConfirmations,
  headerAt,
  headerOf,
  LruMap,
  Cancel,
  scanBatchAnswer,
  parseCanonical,
  rawResultAnswer,
  answerForReply,
  resultScalars,
  checkScope,
  meter,
  auditOnly,
  priceOf,
  graphPrice,
  eventPrice,
  indexerSchema,
  JSON_DEPTH_MAX,
  jsonDepthOver,
  walkSelections,
  graphComplexity,
  listSize,
  hasuraError,
  checkGraphQuery,
  selectedField,
  refusedArguments,
  checkGraphLimits,
  decodedTx,
  decodedTxBaseText,
  decodedTxFromBase,
  rememberFromCore,
  electrumTxSource,
  electrumScripthash,
  isUnspendable,
  BAD_REQUEST,
  DAEMON_ERROR,
  bindArgs,
  hash32Hex,
  isPyBool,
  pyBoolValue,
  electrumTransaction
};
