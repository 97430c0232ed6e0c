import { parseCanonical } from "./canonical-json.ts";
import { isJsonObject, type Json } from "./json.ts";
import { JSON_DEPTH_MAX, jsonDepthOver } from "./json-depth.ts";
import { parseJsonLiftingStrings } from "./long-strings.ts";
import type { RpcErrorObject } from "./types.ts";

/** "2.0" is the spec's envelope; "1.0" is Core's legacy one (no `jsonrpc` key, or "1.0"). */
export type RpcVersion = "1.0" | "2.0";

/** One request object of a body, read as Bitcoin Core reads it (JSONRPCRequest::parse). */
export type RequestItem =
  | {
      kind: "call";
      /** undefined when the key is absent: a notification under 2.0. */
      id: Json | undefined;
      version: RpcVersion;
      method: string;
      params: Json[] | { [key: string]: Json };
    }
  | { kind: "invalid"; id: Json | undefined; version: RpcVersion; error: RpcErrorObject };

export type RequestBody =
  | { kind: "single"; item: RequestItem }
  | { kind: "batch"; items: RequestItem[] }
  /** The body as a whole is unusable (Core answers it as a legacy error with a null id). */
  | { kind: "fatal"; error: RpcErrorObject };

/** How a reader takes a `\u` escape that leaves half a UTF-16 surrogate pair alone. */
export type LoneSurrogates =
  /** Refused as JSON that does not parse: Core's reader (UniValue) has no code point for it. */
  | "refuse"
  /** Read as the lone surrogate it escapes: Python's json, ElectrumX's reader, does. */
  | "read";

/**
 * `depthMax`: nested deeper, the body is "Parse error", as Core answers one past its bound.
 * `loneSurrogates`: as the upstream being mirrored reads them.
 */
export function parseRequestBody(
  body: string,
  depthMax = JSON_DEPTH_MAX,
  loneSurrogates: LoneSurrogates = "read",
): RequestBody {
  let value: Json;
  try {
    // Clients' bodies only: upstream answers are not scanned (they are the operator's servers,
    // and a verbose batch is hundreds of kilobytes on the hot path).
    if (jsonDepthOver(body, depthMax)) throw new SyntaxError(`nested deeper than ${depthMax}`);
    // Compact JSON, as JSON.stringify writes it (most clients), is read by the canonical reader:
    // the same value, faster (no string built a character at a time); anything else (whitespace, escapes, repeated keys) declines to the general parser.
    value = parseCanonical(body) ?? parseJsonLiftingStrings(body);
    if (loneSurrogates === "refuse" && SURROGATE_ESCAPE.test(body) && holdsLoneSurrogate(value)) {
      throw new SyntaxError("a \\u escape of half a surrogate pair");
    }
  } catch {
    return { kind: "fatal", error: { code: -32700, message: "Parse error" } };
  }
  if (Array.isArray(value)) return { kind: "batch", items: value.map(parseRequestItem) };
  if (isJsonObject(value)) return { kind: "single", item: parseRequestItem(value) };
  return { kind: "fatal", error: { code: -32700, message: "Top-level object parse error" } };
}

/**
 * A `\u` escape of a UTF-16 surrogate. A body decoded from UTF-8 holds no lone surrogate but
 * through such an escape, so only a body with one is walked.
 */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;
/** With the `u` flag a pair is one code point: what matches is half a pair alone. */
const LONE_SURROGATE = /[\ud800-\udfff]/u;

/** Whether a string of the value (a key or an element) holds half a surrogate pair alone. */
function holdsLoneSurrogate(value: Json): boolean {
  if (typeof value === "string") return LONE_SURROGATE.test(value);
  if (Array.isArray(value)) return value.some(holdsLoneSurrogate);
  if (!isJsonObject(value)) return false;
  return Object.entries(value).some(
    ([key, item]) => LONE_SURROGATE.test(key) || holdsLoneSurrogate(item),
  );
}

/** The id first (so later errors carry it), then version, method and params, in Core's order. */
export function parseRequestItem(value: Json): RequestItem {
  if (!isJsonObject(value)) {
    return {
      kind: "invalid",
      id: null,
      version: "1.0",
      error: { code: -32600, message: "Invalid Request object" },
    };
  }
  const id = "id" in value ? value.id : undefined;
  let version: RpcVersion = "1.0";
  const invalid = (message: string): RequestItem => ({
    kind: "invalid",
    id,
    version,
    error: { code: -32600, message },
  });
  const v = value.jsonrpc;
  if (v !== undefined && v !== null) {
    if (typeof v !== "string") return invalid("jsonrpc field must be a string");
    if (v === "2.0") version = "2.0";
    else if (v !== "1.0") return invalid("JSON-RPC version not supported");
  }
  const method = value.method;
  if (method === undefined || method === null) return invalid("Missing method");
  if (typeof method !== "string") return invalid("Method must be a string");
  const params = value.params;
  if (params === undefined || params === null)
    return { kind: "call", id, version, method, params: [] };
  if (Array.isArray(params) || isJsonObject(params))
    return { kind: "call", id, version, method, params };
  return invalid("Params must be an array or object");
}

/** JSONRPCReplyObj: `jsonrpc` only in 2.0; 1.0 carries both result and error; then the id. */
export function replyObject(
  version: RpcVersion,
  id: Json | undefined,
  answer: { result: unknown } | { error: RpcErrorObject },
): Record<string, unknown> {
  const reply: Record<string, unknown> = {};
  if (version === "2.0") reply.jsonrpc = "2.0";
  const isError = "error" in answer;
  if (version === "1.0" || !isError) reply.result = isError ? null : answer.result;
  if (version === "1.0" || isError) reply.error = isError ? answer.error : null;
  if (id !== undefined) reply.id = id;
  return reply;
}

/** Core's JSONErrorReply statuses for a legacy request that failed: 400, 404, else 500. */
export function legacyErrorStatus(code: number): number {
  return code === -32600 ? 400 : code === -32601 ? 404 : 500;
}
