import { type CallOutcome, meter } from "../../billing/metering/pipeline.ts";
import { priceOf } from "../../billing/pricing/prices.ts";
import { type HttpReply, textFailure } from "../../http/reply.ts";
import type { GatewayError } from "../../protocol/errors/codes.ts";
import { blockExtended } from "../../protocol/esplora/block-extended.ts";
import {
  type MempoolV1Request,
  mempoolError,
  V1_BLOCKS_LIMIT,
} from "../../protocol/esplora/mempool-v1.ts";
import { blockParts, esploraRead } from "./block-parts.ts";
import type { EsploraContext } from "./services.ts";

/** What a v1 call comes to: mempool's answer (status, JSON or its error), or no answer. */
type V1Result =
  | {
      ok: true;
      status: number;
      contentType: string;
      body: string;
      outcome: CallOutcome;
      /** mempool's `Expires` header, on its answers that set one. */
      expires?: string;
    }
  | { ok: false; error: GatewayError };

const JSON_TYPE = "application/json; charset=utf-8";

/**
 * mempool.space's `/v1/block/:hash` and `/v1/blocks[/:height]`, built by the gateway from the
 * network's Esplora servers and Core nodes (decision 0046). One priced call each: a block at
 * `esplora.v1.block`'s price, whether found or not (Esplora answered); a list at
 * `esplora.v1.blocks`' price per block it holds, reserved for the fifteen it may hold.
 */
export async function handleMempoolV1(
  ctx: EsploraContext,
  request: MempoolV1Request,
  accept: string | undefined,
): Promise<HttpReply> {
  const price = priceOf(ctx.services.config, request.endpoint, ctx.network) ?? 0;
  const many = request.endpoint === "esplora.v1.blocks";
  const metered = await meter(ctx, {
    calls: [
      { kind: "priced", method: request.endpoint, price: many ? price * V1_BLOCKS_LIMIT : price },
    ],
    execute: async () => {
      const out =
        request.endpoint === "esplora.v1.block"
          ? await oneBlock(ctx, request.hash, accept)
          : await blockList(ctx, request.height, price);
      return {
        value: out,
        outcomes: [out.ok ? out.outcome : { kind: "failed", error: out.error }],
      };
    },
  });
  if (!metered.ok) return withHeaders(textFailure(metered.error), metered.headers);
  const out = metered.value;
  if (!out.ok) return withHeaders(textFailure(out.error), metered.headers);
  return {
    status: out.status,
    body: null,
    raw: Buffer.from(out.body),
    headers: {
      "content-type": out.contentType,
      ...(out.expires ? { expires: out.expires } : {}),
      ...metered.headers,
    },
  };
}

const DAY = 24 * 3600;

/** mempool's getBlock: an answer kept 30 days for a block over a year old, 10 over a month, else 600 s. */
function blockExpires(timestamp: number, now = Date.now()): string {
  const age = now / 1000 - timestamp;
  const seconds = age > 365 * DAY ? 30 * DAY : age > 30 * DAY ? 10 * DAY : 600;
  return new Date(now + 1000 * seconds).toUTCString();
}

/** `/v1/block/:hash`: the block extended, or mempool's 404 when Esplora has no such block. */
async function oneBlock(
  ctx: EsploraContext,
  hash: string,
  accept: string | undefined,
): Promise<V1Result> {
  const parts = await blockParts(ctx, hash);
  if (!parts.ok) return parts;
  if ("notFound" in parts) {
    const answer = mempoolError(404, "Failed to get block", accept);
    const outcome: CallOutcome = {
      kind: "answered",
      outcome: "upstream_error",
      errorCode: "UPSTREAM_ERROR",
      upstreamCode: "404",
      httpStatus: 404,
      upstream: parts.upstream,
    };
    return { ok: true, ...answer, outcome };
  }
  const body = JSON.stringify(blockExtended(parts.parts));
  return {
    ok: true,
    status: 200,
    contentType: JSON_TYPE,
    body,
    outcome: okOutcome(parts.upstream),
    expires: blockExpires(parts.parts.block.timestamp),
  };
}

function okOutcome(upstream: string | null, chargedCc?: number): CallOutcome {
  return {
    kind: "answered",
    outcome: "ok",
    httpStatus: 200,
    upstream,
    ...(chargedCc === undefined ? {} : { chargedCc }),
  };
}

/**
 * The heights mempool's `$getBlocks(height, 15)` walks: from the height (the tip when absent,
 * and no higher than it) down, fifteen less what the height was past the tip. A height that is
 * not a number or is negative walks none.
 */
export function v1Heights(height: number | undefined, tip: number): number[] {
  let current = height ?? tip;
  let limit = V1_BLOCKS_LIMIT;
  if (current > tip) {
    limit -= current - tip;
    current = tip;
  }
  const heights: number[] = [];
  for (let i = 0; i < limit && current >= 0; i++) heights.push(current--);
  return heights;
}

/** `/v1/blocks[/:height]`: each block extended, charged per block. */
async function blockList(
  ctx: EsploraContext,
  height: number | undefined,
  price: number,
): Promise<V1Result> {
  const empty = height !== undefined && !(height >= 0);
  let heights: number[] = [];
  if (!empty) {
    const tip = await esploraRead<string>(ctx, "/blocks/tip/height", false);
    if (!tip.ok) return tip;
    const tipHeight = "value" in tip ? Number(tip.value) : Number.NaN;
    if (!Number.isSafeInteger(tipHeight)) return badAnswer("/blocks/tip/height");
    heights = v1Heights(height, tipHeight);
  }
  const blocks = await Promise.all(heights.map((h) => blockAt(ctx, h)));
  const failed = blocks.find((b) => !b.ok);
  if (failed && !failed.ok) return failed;
  const list = blocks.flatMap((b) => (b.ok ? [b.block] : []));
  const upstream = blocks.find((b) => b.ok)?.upstream ?? null;
  return {
    ok: true,
    status: 200,
    contentType: JSON_TYPE,
    body: JSON.stringify(list),
    outcome: okOutcome(upstream, price * list.length),
    // mempool's getBlocks: a minute.
    expires: new Date(Date.now() + 60_000).toUTCString(),
  };
}

function badAnswer(what: string): { ok: false; error: GatewayError } {
  return {
    ok: false,
    error: { code: "UPSTREAM_BAD_RESPONSE", message: `unexpected answer to ${what}` },
  };
}

/** The best chain's block at a height, extended; any miss on the way is a failure. */
async function blockAt(
  ctx: EsploraContext,
  height: number,
): Promise<
  | { ok: true; block: Record<string, unknown>; upstream: string }
  | { ok: false; error: GatewayError }
> {
  const hash = await esploraRead<string>(ctx, `/block-height/${height}`, false);
  if (!hash.ok) return hash;
  if (!("value" in hash) || !/^[0-9a-f]{64}$/.test(hash.value)) {
    return badAnswer(`/block-height/${height}`);
  }
  const parts = await blockParts(ctx, hash.value);
  if (!parts.ok) return parts;
  if ("notFound" in parts) return badAnswer(`/block/${hash.value}`);
  return { ok: true, block: blockExtended(parts.parts), upstream: parts.upstream };
}

function withHeaders(reply: HttpReply, headers: Record<string, string>): HttpReply {
  return { ...reply, headers: { ...reply.headers, ...headers } };
}
