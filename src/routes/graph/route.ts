import { auditOnly, type CallOutcome, meter } from "../../billing/metering/pipeline.ts";
import { graphComplexity } from "../../billing/pricing/graph-complexity.ts";
import { graphPrice } from "../../billing/pricing/prices.ts";
import type { BlockRef } from "../../cache/chain-guard.ts";
import { graphqlFailure, type HttpReply } from "../../http/reply.ts";
import { fromHasuraCode, gatewayError, httpStatusOf } from "../../protocol/errors/codes.ts";
import { hasuraErrorObject } from "../../protocol/errors/render.ts";
import { type CheckedQuery, checkGraphQuery } from "../../protocol/hasura/check.ts";
import type { HasuraError } from "../../protocol/hasura/hasura-error.ts";
import { executeIntrospection } from "../../protocol/hasura/introspection.ts";
import { checkGraphLimits } from "../../protocol/hasura/limits.ts";
import { type GraphRequest, parseGraphRequest } from "../../protocol/hasura/request.ts";
import { indexerSchema } from "../../protocol/hasura/schema.ts";
import { isJsonObject, type Json, jsonInteger, stringifyJson } from "../../protocol/json/json.ts";
import type { IndexerOutcome } from "../../upstreams/indexer/pool.ts";
import { CACHE_UPSTREAM } from "../json-rpc/mirror.ts";
import type { GraphContext } from "./services.ts";

/**
 * The graph mirror: POST /<graph>/<network>/<token>, answered as the indexer answers plus
 * `extensions.cost`. Each step can refuse before the next: check the query as Hasura would (its
 * error, HTTP 200, uncharged); the gateway's limits; price it from its complexity; then the
 * metering pipeline: reserve (429, nothing forwarded), forward within graph.queryTimeoutMs, and
 * settle the price with the audit record before answering.
 */
export async function handleGraphQuery(ctx: GraphContext, body: string): Promise<HttpReply> {
  const app = ctx.services;
  const schema = indexerSchema();
  const parsed = parseGraphRequest(body, ctx.services.config.server.jsonDepthMax);
  if (!parsed.ok) return refuse(ctx, "(invalid)", parsed.error);
  const { request } = parsed;
  const checked = checkGraphQuery(schema, request, app.config.graph.tokensMax);
  if (!checked.ok) return refuse(ctx, "(invalid)", checked.error);
  const { query } = checked;
  const method = rootFieldNames(query);
  // Introspection alone touches no table: answered here from the schema, free.
  if (query.fields.every((f) => f.introspection)) return introspect(ctx, method, query);
  // The indexer's rows are checked against nothing: a caller that requires verified answers is
  // refused before anything is asked.
  if (ctx.requireVerified) {
    const message = "the indexer's answers cannot be verified, and verification was required";
    return refuse(ctx, method, hasuraErrorObject(gatewayError("UNVERIFIED", message)));
  }
  const limits = app.config.graph;
  const overLimit = checkGraphLimits(query.fields, limits, app.config.graphql.listItemsMax);
  if (overLimit) return refuse(ctx, method, overLimit);
  const complexity = graphComplexity(query.fields, limits);
  if (complexity > limits.complexityMax) {
    const message = `the query's complexity is ${complexity}; the limit is ${limits.complexityMax}: ask for fewer rows`;
    const error = gatewayError("LIMIT_EXCEEDED", message);
    return refuse(ctx, method, hasuraErrorObject(error, { variant: "complexity-limit-exceeded" }));
  }
  const metered = await meter(ctx, {
    // Charged as estimated: the price is of the query asked, known before it ran.
    calls: [
      {
        kind: "priced",
        method,
        price: graphPrice(app.config, ctx.network, complexity),
        complexity,
      },
    ],
    execute: () => forward(ctx, request, query),
  });
  if (!metered.ok) return { ...graphqlFailure(metered.error), headers: metered.headers };
  const out = metered.value;
  if (!out.ok) {
    if (out.error.code === "RESPONSE_TOO_LARGE") {
      app.log.info(
        { requestId: ctx.requestId, detail: out.error.detail },
        "answer over server.responseBytesMax: not passed on, charged as answered",
      );
    }
    return { ...graphqlFailure(out.error), headers: metered.headers };
  }
  return answer(out.data, complexity, metered);
}

/** An introspection query, answered from the schema through the pipeline, free. */
async function introspect(ctx: GraphContext, method: string, query: CheckedQuery) {
  const metered = await meter(ctx, {
    calls: [{ kind: "priced", method, price: 0, complexity: 0 }],
    execute: async () => ({
      value: executeIntrospection(indexerSchema(), query),
      outcomes: [{ kind: "answered", outcome: "ok", httpStatus: 200 }],
    }),
  });
  // A free call is never refused for credits; the branch only narrows the type.
  if (!metered.ok) return { ...graphqlFailure(metered.error), headers: metered.headers };
  return answer(metered.value, 0, metered);
}

/** The query's trip: a kept answer about final blocks, else the indexer (kept when it may be). */
async function forward(ctx: GraphContext, request: GraphRequest, query: CheckedQuery) {
  const app = ctx.services;
  const cacheKey = finalBlocks(query) ? answerKey(ctx, request) : null;
  const hit = cacheKey ? await app.txCache.blockAnswer(ctx.network, cacheKey) : null;
  if (hit) {
    const outcome: CallOutcome = {
      kind: "answered",
      outcome: "ok",
      httpStatus: 200,
      upstream: CACHE_UPSTREAM,
      cacheHits: 1,
    };
    return {
      value: { ok: true as const, data: hit, upstream: CACHE_UPSTREAM } as IndexerOutcome,
      outcomes: [outcome],
    };
  }
  const pool = app.indexers.get(ctx.network);
  const out: IndexerOutcome = pool
    ? await pool.query(request, app.config.graph.queryTimeoutMs)
    : { ok: false, error: gatewayError("UPSTREAM_UNAVAILABLE", "no indexer for this network") };
  const blocks = out.ok && cacheKey ? blocksOf(query, out.data) : null;
  if (cacheKey && blocks && out.ok) {
    await app.txCache.rememberBlockAnswer(ctx.network, cacheKey, out.data, blocks);
  }
  return { value: out, outcomes: [graphOutcome(out)] };
}

/**
 * What the audit log keeps of the query's trip: an answer (charged), an answer over
 * server.responseBytesMax (charged as answered: the indexer did the work; not passed on, and
 * logged once), or no answer (not charged).
 */
function graphOutcome(out: IndexerOutcome): CallOutcome {
  if (out.ok) return { kind: "answered", outcome: "ok", httpStatus: 200, upstream: out.upstream };
  if (out.error.code !== "RESPONSE_TOO_LARGE") return { kind: "failed", error: out.error };
  return {
    kind: "answered",
    outcome: "too_large",
    errorCode: out.error.code,
    httpStatus: httpStatusOf(out.error.code),
    upstream: out.upstream ?? null,
  };
}

function answer(
  data: unknown,
  complexity: number,
  cost: { charged: number; available: number; headers: Record<string, string> },
): HttpReply {
  const { charged, available: balance } = cost;
  return {
    status: 200,
    body: {
      data,
      extensions: { cost: { complexity, estimated: charged, actual: charged, charged, balance } },
    },
    headers: cost.headers,
  };
}

/** A query refused before anything was reserved or forwarded: audited, not charged. */
async function refuse(ctx: GraphContext, method: string, error: HasuraError): Promise<HttpReply> {
  // The code as Hasura spells it is the one the client saw: kept beside the list's.
  const audited = await auditOnly(ctx, [
    {
      method,
      outcome: "rejected",
      errorCode: fromHasuraCode(error.extensions.code),
      upstreamCode: error.extensions.code,
      httpStatus: 200,
    },
  ]);
  return { status: 200, body: { errors: [error] }, headers: audited.headers };
}

/**
 * Whether the query's answer is final once its blocks are deep: every root field is `block_by_pk`
 * (a block named by its hash: the same rows for as long as that block is on the best chain) and
 * selects `height` unaliased, so the answer says how deep each block is. Any other shape — a
 * `block` list, whose rows depend on where the tip is unless its filter bounds them — is not
 * cached.
 */
function finalBlocks(query: CheckedQuery): boolean {
  return query.fields.every(
    (f) =>
      f.name === "block_by_pk" &&
      !f.introspection &&
      typeof f.args.hash === "string" &&
      f.children.some((c) => c.name === "height" && c.responseKey === "height"),
  );
}

/** The blocks an answer of such a query is about; null when one is missing (not yet final). */
function blocksOf(query: CheckedQuery, data: { [key: string]: Json }): BlockRef[] | null {
  const blocks: BlockRef[] = [];
  for (const f of query.fields) {
    const row = data[f.responseKey];
    const height = isJsonObject(row) ? jsonInteger(row.height) : undefined;
    if (height === undefined) return null;
    blocks.push({ height, blockhash: String(f.args.hash).toLowerCase() });
  }
  return blocks;
}

/** One cached answer per network and request as written (query text, variables, operation). */
function answerKey(ctx: GraphContext, request: GraphRequest): string {
  return `${ctx.network}\u0000${request.operationName ?? ""}\u0000${request.query}\u0000${stringifyJson(request.variables)}`;
}

/** The audit log's `method` for a query: its root fields, `block` or `block,block_by_pk`. */
function rootFieldNames(query: CheckedQuery): string {
  return [...new Set(query.fields.map((f) => f.name))].join(",");
}
