import type { Json } from "../json/json.ts";
import type { Checked } from "../json/types.ts";
import { BAD_REQUEST, bindArgs } from "./params.ts";
import { pyStr } from "./python-text.ts";

/** The protocol versions ElectrumX 1.18 speaks (session.py PROTOCOL_MIN, PROTOCOL_MAX). */
export const ELECTRUMX_PROTOCOL_MIN = [1, 4];
export const ELECTRUMX_PROTOCOL_MAX = [1, 6];

/** util.protocol_tuple: "1.4.2" → [1, 4, 2]; anything unreadable → [0]. */
export function protocolTuple(value: Json | undefined): number[] {
  if (typeof value !== "string") return [0];
  const parts = value.split(".");
  if (!parts.every((p) => /^\s*[+-]?\d+\s*$/.test(p))) return [0];
  return parts.map((p) => Number(p.trim()));
}

/** Python's tuple comparison of two protocol versions: negative, zero or positive. */
export function compareProtocols(a: number[], b: number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i] !== b[i]) return a[i]! - b[i]!;
  }
  return a.length - b.length;
}

/**
 * util.protocol_version: the highest version both sides speak, or null. The client asks with a
 * version string or [min, max]; asking nothing means the server's minimum.
 */
export function negotiateProtocol(
  request: Json | undefined,
  min: number[],
  max: number[],
): number[] | null {
  let clientMin: number[];
  let clientMax: number[];
  if (request === null || request === undefined) {
    clientMin = min;
    clientMax = min;
  } else if (Array.isArray(request) && request.length === 2) {
    clientMin = protocolTuple(request[0]);
    clientMax = protocolTuple(request[1]);
  } else {
    clientMin = protocolTuple(request);
    clientMax = clientMin;
  }
  const result = compareProtocols(clientMax, max) < 0 ? clientMax : max;
  const floor = compareProtocols(clientMin, min) > 0 ? clientMin : min;
  if (compareProtocols(result, floor) < 0 || compareProtocols(result, [0]) === 0) return null;
  return result;
}

/** util.version_string: at least one dot, so [1] is "1.0". */
export function versionString(tuple: number[]): string {
  const padded = [...tuple];
  while (padded.length < 2) padded.push(0);
  return padded.join(".");
}

/**
 * server.version as the gateway answers it (HTTP has no session to negotiate once for): the
 * client's request is negotiated as ElectrumX negotiates it, between 1.4 and the protocol the
 * gateway's own connections agreed with the server (`upstreamProtocol`; ElectrumX's maximum while
 * none is open). Returns the agreed version, or ElectrumX's refusal.
 */
export function checkServerVersion(
  params: Json[] | { [key: string]: Json },
  upstreamProtocol: string | null,
): Checked {
  const args = bindArgs("server.version", params, [], ["client_name", "protocol_version"]);
  if (!Array.isArray(args)) return { ok: false, error: args };
  const requested = args[1] ?? null;
  const max = upstreamProtocol ? protocolTuple(upstreamProtocol) : ELECTRUMX_PROTOCOL_MAX;
  const agreed = negotiateProtocol(requested, ELECTRUMX_PROTOCOL_MIN, max);
  if (!agreed) {
    return {
      ok: false,
      error: { code: BAD_REQUEST, message: `unsupported protocol version: ${pyStr(requested)}` },
    };
  }
  return { ok: true, params: [versionString(agreed)] };
}
