import { auditOnly, type CallOutcome, meter } from "../../billing/metering/pipeline.ts";
import { priceOf } from "../../billing/pricing/prices.ts";
import { type HttpReply, textFailure, textReply } from "../../http/reply.ts";
import { type ErrorCode, gatewayError, httpStatusOf } from "../../protocol/errors/codes.ts";
import { mempoolError, readMempoolV1Request } from "../../protocol/esplora/mempool-v1.ts";
import {
  type EsploraRefusal,
  type EsploraRequest,
  isRead,
  isRefusal,
  readEsploraRequest,
} from "../../protocol/esplora/request.ts";
import { esploraScripthash } from "../../protocol/esplora/script.ts";
import { complete, type Verified } from "../../protocol/verified.ts";
import { bytesCheckedPath } from "../../upstreams/esplora/answer-check.ts";
import type { EsploraOutcome } from "../../upstreams/esplora/pool.ts";
import { handleMempoolV1 } from "./mempool-v1.ts";
import type { EsploraContext } from "./services.ts";

/**
 * The Esplora mirror: `GET|POST /<esplora>/<network>/<token>/api/<path>`, answered as the
 * Esplora server answers (its status, content type and bytes). A request Esplora would refuse
 * (an unknown endpoint, a hash that is not hex, an address of another network) is refused here
 * in its words, before anything is reserved or forwarded: audited, not charged. Anything else is
 * one priced call through the metering pipeline; Esplora's own 4xx answers (404 "Transaction not
 * found") are answers, charged like Core's -5. mempool.space's own `/v1/block…` endpoints, which
 * mempool.js calls, are answered by the gateway itself (./mempool-v1.ts).
 */
export async function handleEsplora(
  ctx: EsploraContext,
  body: string,
  method: string,
  path: string,
  accept?: string,
): Promise<HttpReply> {
  const v1 = readMempoolV1Request(method, path);
  if (v1 && "status" in v1) {
    const answer = mempoolError(v1.status, v1.text, accept);
    const reply = { status: answer.status, body: null, raw: Buffer.from(answer.body) };
    return refuse(ctx, "(invalid)", v1, {
      ...reply,
      headers: { "content-type": answer.contentType },
    });
  }
  if (v1) return handleMempoolV1(ctx, v1, accept);
  const request = readEsploraRequest(method, path, body);
  if (isRefusal(request)) return refuse(ctx, "(invalid)", request);
  if (request.script) {
    const resolved = esploraScripthash(request.script, ctx.network);
    if ("status" in resolved) return refuse(ctx, request.endpoint, resolved);
  }
  const price = priceOf(ctx.services.config, request.endpoint, ctx.network) ?? 0;
  const metered = await meter(ctx, {
    calls: [{ kind: "priced", method: request.endpoint, price }],
    execute: async () => {
      const out = await forward(ctx, request, path);
      const verified: Verified =
        out.ok && out.status === 200 && bytesCheckedPath(path) ? "bytes" : "unchecked";
      if (ctx.requireVerified && !complete(verified)) return unverified();
      return { value: out, outcomes: [outcomeOf(out, verified)] };
    },
  });
  if (!metered.ok) return withHeaders(textFailure(metered.error), metered.headers);
  const out = metered.value;
  if (!out.ok) return withHeaders(textFailure(out.error), metered.headers);
  return {
    status: out.status,
    body: null,
    raw: out.body,
    headers: { "content-type": out.contentType, ...metered.headers },
  };
}

/** The request on the network's Esplora servers, as the client wrote its path. */
function forward(ctx: EsploraContext, request: EsploraRequest, path: string) {
  const pool = ctx.services.esplora.get(ctx.network);
  if (!pool) {
    const error = gatewayError("UPSTREAM_UNAVAILABLE", "no Esplora server for this network");
    return Promise.resolve<EsploraOutcome>({ ok: false, error });
  }
  return isRead(request)
    ? pool.request({ method: "GET", path })
    : pool.request({ method: "POST", path, body: request.body ?? "" });
}

/**
 * What the audit log keeps of the trip: Esplora's answer (charged; its 4xx refusals as upstream
 * errors with their status), an answer over server.responseBytesMax (charged, not passed on), or
 * no answer (not charged).
 */
function outcomeOf(out: EsploraOutcome, verified: Verified): CallOutcome {
  if (out.ok) {
    if (out.status < 400) {
      const cacheHits = out.upstream === "cache" ? 1 : 0;
      const { status: httpStatus, upstream } = out;
      return { kind: "answered", outcome: "ok", httpStatus, upstream, cacheHits, verified };
    }
    return {
      kind: "answered",
      outcome: "upstream_error",
      errorCode: "UPSTREAM_ERROR",
      upstreamCode: String(out.status),
      httpStatus: out.status,
      upstream: out.upstream,
    };
  }
  if (out.error.code !== "RESPONSE_TOO_LARGE") return { kind: "failed", error: out.error };
  return {
    kind: "answered",
    outcome: "too_large",
    errorCode: out.error.code,
    httpStatus: httpStatusOf(out.error.code),
    upstream: out.upstream ?? null,
  };
}

/**
 * An answer the caller required verified (X-Blockgate-Require-Verified) that could not be: only
 * a transaction's or block's bytes are checked on this route. Refused, not charged.
 */
function unverified(): { value: EsploraOutcome; outcomes: CallOutcome[] } {
  const error = gatewayError(
    "UNVERIFIED",
    "the answer could not be verified, and verification was required",
  );
  const httpStatus = httpStatusOf(error.code);
  return {
    value: { ok: false, error },
    outcomes: [
      { kind: "answered", outcome: "rejected", errorCode: error.code, httpStatus, chargedCc: 0 },
    ],
  };
}

/** A request refused as Esplora refuses it, before anything was reserved: audited, not charged. */
async function refuse(
  ctx: EsploraContext,
  method: string,
  refusal: EsploraRefusal,
  reply: HttpReply = textReply(refusal.status, refusal.text),
): Promise<HttpReply> {
  const errorCode: ErrorCode = refusal.status === 404 ? "ROUTE_NOT_FOUND" : "INVALID_PARAMS";
  const audited = await auditOnly(ctx, [
    {
      method,
      outcome: "rejected",
      errorCode,
      upstreamCode: String(refusal.status),
      httpStatus: refusal.status,
    },
  ]);
  return withHeaders(reply, audited.headers);
}

function withHeaders(reply: HttpReply, headers: Record<string, string>): HttpReply {
  return { ...reply, headers: { ...reply.headers, ...headers } };
}
