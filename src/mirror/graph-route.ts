import type { CallContext } from "../app/context.ts";
import { gatewayError, httpStatusOf } from "../errors/codes.ts";
import { type CheckedQuery, checkGraphQuery } from "../graph/check.ts";
import { type HasuraError, hasuraError } from "../graph/hasura-error.ts";
import { parseGraphRequest } from "../graph/request.ts";
import { indexerSchema } from "../graph/schema.ts";
import { graphqlFailure, type HttpReply } from "../http/reply.ts";
import { settle } from "../ledger/ledger.ts";
import { graphComplexity } from "../pricing/graph-complexity.ts";
import { graphPrice } from "../pricing/prices.ts";
import { executeIntrospection } from "./graph-introspection.ts";
import { checkGraphLimits } from "./graph-limits.ts";
import { auditRecord, creditHeaders, reserveFor } from "./metering.ts";

/**
 * The graph mirror: POST /<graph>/<network>/<token> with `{query, variables, operationName}`,
 * answered as the indexer answers (`{data}` keyed by the requested root fields) plus the cost in
 * `extensions.cost`. In order, each step before the next because each can refuse:
 *
 *   1. check the query against the indexer's schema, as Hasura would (invalid: Hasura's error,
 *      HTTP 200, not charged, nothing forwarded);
 *   2. the gateway's limits (page size, depth, aliases, complexity);
 *   3. price it from its complexity, before any upstream call;
 *   4. reserve the price — short: HTTP 429 naming balance and required, nothing forwarded;
 *   5. forward, bounded by graph.queryTimeoutMs;
 *   6. settle (charge = the estimate: the price is of the query asked, known before it ran) with
 *      the audit record and its complexity, in one transaction, and only then answer.
 */
export async function handleGraphQuery(ctx: CallContext, body: string): Promise<HttpReply> {
  const { app } = ctx;
  const schema = indexerSchema();
  const parsed = parseGraphRequest(body);
  if (!parsed.ok) return refuse(ctx, "(invalid)", parsed.error);
  const { request } = parsed;
  const checked = checkGraphQuery(schema, request);
  if (!checked.ok) return refuse(ctx, "(invalid)", checked.error);
  const { query } = checked;
  const method = rootFieldNames(query);

  // Introspection alone touches no table: answered here from the schema, free (DESIGN.md).
  if (query.fields.every((f) => f.introspection)) {
    const data = executeIntrospection(schema, query);
    const settled = await settle(app.db, ctx.owner.accountId, null, [
      auditRecord(ctx, { method, outcome: "ok", httpStatus: 200, complexity: 0 }),
    ]);
    return answer(data, 0, 0, settled.available);
  }

  const limits = app.config.graph;
  const overLimit = checkGraphLimits(query.fields, limits);
  if (overLimit) return refuse(ctx, method, overLimit);
  const complexity = graphComplexity(query.fields, limits);
  if (complexity > limits.complexityMax) {
    return refuse(
      ctx,
      method,
      hasuraError(
        `the query's complexity is ${complexity}; the limit is ${limits.complexityMax}: ask for fewer rows`,
        "$",
        "complexity-limit-exceeded",
      ),
    );
  }
  const estimate = graphPrice(app.config, ctx.network, complexity);

  const reservation = await reserveFor(ctx, estimate);
  if (!reservation.ok) {
    const { error } = reservation;
    await settle(app.db, ctx.owner.accountId, null, [
      auditRecord(ctx, {
        method,
        outcome: "insufficient_credits",
        errorCode: error.code,
        httpStatus: httpStatusOf(error.code),
        estimatedCc: estimate,
        complexity,
      }),
    ]);
    return {
      ...graphqlFailure(error),
      headers: creditHeaders(estimate, 0, reservation.available),
    };
  }

  const pool = app.indexers.get(ctx.network);
  const out = pool
    ? await pool.query(request, AbortSignal.timeout(limits.queryTimeoutMs))
    : {
        ok: false as const,
        error: gatewayError("UPSTREAM_UNAVAILABLE", "no indexer for this network"),
      };
  if (!out.ok) {
    app.log.warn({ requestId: ctx.requestId, detail: out.error.detail }, out.error.message);
    const status = httpStatusOf(out.error.code);
    const settled = await settle(app.db, ctx.owner.accountId, reservation.hold, [
      auditRecord(ctx, {
        method,
        outcome: "upstream_failure",
        errorCode: out.error.code,
        httpStatus: status,
        estimatedCc: estimate,
        complexity,
      }),
    ]);
    return { ...graphqlFailure(out.error), headers: creditHeaders(estimate, 0, settled.available) };
  }
  // Invariant 3: the answer leaves only after its charge and audit record are committed.
  const settled = await settle(app.db, ctx.owner.accountId, reservation.hold, [
    auditRecord(ctx, {
      method,
      outcome: "ok",
      httpStatus: 200,
      estimatedCc: estimate,
      chargedCc: estimate,
      upstream: out.upstream,
      complexity,
    }),
  ]);
  return answer(out.data, complexity, estimate, settled.available);
}

function answer(data: unknown, complexity: number, charged: number, balance: number): HttpReply {
  return {
    status: 200,
    body: {
      data,
      extensions: { cost: { complexity, estimated: charged, actual: charged, charged, balance } },
    },
    headers: creditHeaders(charged, charged, balance),
  };
}

/** A query refused before anything was reserved or forwarded: audited, not charged. */
async function refuse(ctx: CallContext, method: string, error: HasuraError): Promise<HttpReply> {
  const settled = await settle(ctx.app.db, ctx.owner.accountId, null, [
    auditRecord(ctx, {
      method,
      outcome: "rejected",
      errorCode: error.extensions.code,
      httpStatus: 200,
    }),
  ]);
  return {
    status: 200,
    body: { errors: [error] },
    headers: creditHeaders(0, 0, settled.available),
  };
}

/** The audit log's `method` for a query: its root fields, `block` or `block,block_by_pk`. */
function rootFieldNames(query: CheckedQuery): string {
  return [...new Set(query.fields.map((f) => f.name))].join(",");
}
