/**
 * mempool.space's backend extensions under the Esplora API (mempool/mempool backend
 * bitcoin.routes.ts): `GET /v1/block/:hash` and `GET /v1/blocks[/:height]`, which mempool.js
 * calls for `getBlock` and `getBlocks`. They are not electrs' endpoints: the gateway builds their
 * answers itself (decision 0046). Paths are read as Express reads them for those routes, and
 * refused in mempool's words.
 */

import type { EsploraRefusal } from "./request.ts";

/** The two endpoints, by the names they are priced, scoped and audited under. */
export const MEMPOOL_V1_ENDPOINTS = ["esplora.v1.block", "esplora.v1.blocks"] as const;
export type MempoolV1Endpoint = (typeof MEMPOOL_V1_ENDPOINTS)[number];

/** How many blocks `/v1/blocks` answers at most (mempool's `$getBlocks(height, 15)`). */
export const V1_BLOCKS_LIMIT = 15;

export type MempoolV1Request =
  | { endpoint: "esplora.v1.block"; hash: string }
  /** `height`: parseInt's reading of the segment (NaN for none), absent for the tip. */
  | { endpoint: "esplora.v1.blocks"; height?: number };

/** mempool's BLOCK_HASH_REGEX. */
const BLOCK_HASH = /^[a-f0-9]{64}$/i;

/**
 * A path below `/api` read as one of the two routes, a refusal in mempool's words, or undefined
 * for any other path (left to electrs' rules). Express matches `/v1/blocks/:height` and
 * `/v1/block/:hash` on whole segments, a trailing slash allowed; `:height` goes through parseInt.
 */
export function readMempoolV1Request(
  method: string,
  path: string,
): MempoolV1Request | EsploraRefusal | undefined {
  if (method !== "GET") return undefined;
  const p = path
    .replace(/(.)\/$/, "$1")
    .split("/")
    .slice(1);
  if (p[0] !== "v1") return undefined;
  if (p[1] === "blocks" && p.length === 2) return { endpoint: "esplora.v1.blocks" };
  if (p[1] === "blocks" && p.length === 3 && p[2] !== "") {
    return { endpoint: "esplora.v1.blocks", height: Number.parseInt(decode(p[2]!), 10) };
  }
  if (p[1] === "block" && p.length === 3 && p[2] !== "") {
    const hash = decode(p[2]!);
    return BLOCK_HASH.test(hash)
      ? { endpoint: "esplora.v1.block", hash: hash.toLowerCase() }
      : { status: 400, text: "Invalid block hash" };
  }
  return undefined;
}

/** Express decodes route parameters; an undecodable one is left as written. */
function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * mempool's handleError: `{"error": message}` as JSON when the request accepts JSON (Express's
 * `req.accepts('json')`: no Accept header, or a range covering application/json with q > 0),
 * else the message as Express sends a string (text/html).
 */
export function mempoolError(
  status: number,
  message: string,
  accept: string | undefined,
): { status: number; contentType: string; body: string } {
  return acceptsJson(accept)
    ? {
        status,
        contentType: "application/json; charset=utf-8",
        body: JSON.stringify({ error: message }),
      }
    : { status, contentType: "text/html; charset=utf-8", body: message };
}

/** Whether an Accept header lets JSON through: the most specific matching range decides. */
export function acceptsJson(accept: string | undefined): boolean {
  if (accept === undefined || accept.trim() === "") return true;
  let best = -1;
  let quality = 0;
  for (const part of accept.split(",")) {
    const [range = "", ...params] = part.split(";").map((s) => s.trim().toLowerCase());
    const specificity =
      range === "application/json" ? 2 : range === "application/*" ? 1 : range === "*/*" ? 0 : -1;
    if (specificity < 0 || specificity < best) continue;
    const q = params.find((x) => x.startsWith("q="));
    const value = q === undefined ? 1 : Number(q.slice(2));
    if (specificity > best) quality = Number.isFinite(value) ? value : 0;
    else quality = Math.max(quality, Number.isFinite(value) ? value : 0);
    best = specificity;
  }
  return quality > 0;
}
