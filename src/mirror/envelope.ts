import { isJsonNumber, isJsonObject, type Json, parseJson } from "../jsonrpc/json.ts";
import type { JsonRpcId, RpcErrorObject } from "../jsonrpc/types.ts";

/** One element of a request body: a call to execute, or an error already decided. */
export type EnvelopeItem =
  | { kind: "call"; id: JsonRpcId; method: string; params: Json[] | { [key: string]: Json } }
  | { kind: "invalid"; id: JsonRpcId; error: RpcErrorObject };

export type Envelope =
  | { kind: "single"; item: EnvelopeItem }
  | { kind: "batch"; items: EnvelopeItem[] }
  /** The body as a whole is unusable: one error reply with id null. */
  | { kind: "fatal"; error: RpcErrorObject };

/**
 * Parses a JSON-RPC 2.0 body the way Bitcoin Core words its complaints (src/httprpc.cpp,
 * src/rpc/request.cpp), with two decisions of ours: `"jsonrpc": "2.0"` is required (the spec's
 * envelope), and notifications are refused rather than executed unseen, since every call is
 * charged and a caller must see what it paid for.
 */
export function parseEnvelope(body: string, batchItemsMax: number): Envelope {
  let value: Json;
  try {
    value = parseJson(body);
  } catch {
    return { kind: "fatal", error: { code: -32700, message: "Parse error" } };
  }
  if (Array.isArray(value)) {
    if (value.length > batchItemsMax) {
      return {
        kind: "fatal",
        error: { code: -32600, message: `Batch too large: at most ${batchItemsMax} requests` },
      };
    }
    return { kind: "batch", items: value.map(parseItem) };
  }
  if (isJsonObject(value)) return { kind: "single", item: parseItem(value) };
  return { kind: "fatal", error: { code: -32700, message: "Top-level object parse error" } };
}

function parseItem(value: Json): EnvelopeItem {
  if (!isJsonObject(value)) {
    return {
      kind: "invalid",
      id: null,
      error: { code: -32600, message: "Invalid Request object" },
    };
  }
  const rawId = value.id;
  // Echoed as it came, number literal included (an id of 1.0 comes back as 1.0).
  const id: JsonRpcId = typeof rawId === "string" || isJsonNumber(rawId) ? rawId : null;
  const invalid = (message: string): EnvelopeItem => ({
    kind: "invalid",
    id,
    error: { code: -32600, message },
  });
  if (!("id" in value)) {
    return invalid("Notifications are not supported: every call is charged, so give it an id");
  }
  if (rawId !== null && typeof rawId !== "string" && !isJsonNumber(rawId)) {
    return invalid("Invalid Request object: id must be a string, a number or null");
  }
  if (value.jsonrpc !== "2.0") return invalid("JSON-RPC version not supported");
  if (!("method" in value)) return invalid("Missing method");
  if (typeof value.method !== "string") return invalid("Method must be a string");
  const params = value.params;
  if (params === undefined || params === null)
    return { kind: "call", id, method: value.method, params: [] };
  if (Array.isArray(params) || isJsonObject(params)) {
    return { kind: "call", id, method: value.method, params };
  }
  return invalid("Params must be an array or object");
}

export function replyResult(id: JsonRpcId, result: Json) {
  return { jsonrpc: "2.0", id, result };
}

export function replyError(id: JsonRpcId, error: RpcErrorObject) {
  return { jsonrpc: "2.0", id, error };
}
