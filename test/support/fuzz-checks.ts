import { request as httpRequest } from "node:http";
import { type FuzzCase, pathOf } from "./arbitraries.ts";

/**
 * Sending a generated case (test/support/arbitraries.ts) and judging its answer: what the
 * property tests assert and what bench/fuzz.ts counts. The rules:
 *  - an answer in the route's protocol, well formed (a JSON-RPC error object with a numeric code
 *    and a message, ids as the protocol says; a GraphQL `errors` array of messages);
 *  - never a 5xx, except Bitcoin Core's legacy JSON-RPC 1.0 statuses, which the node route
 *    mirrors (Core answers an RPC error to a 1.0 request with HTTP 500: docs/users/node.md),
 *    and 503 for a lost upstream;
 *  - no stack trace in any answer;
 *  - an answer within the bound (no hang), and within a case's own bound when it has one (the
 *    hostile shapes: an answer in milliseconds whatever their size);
 *  - no charge for an input the gateway refused (`refused` tells which those are).
 */

export interface Answer {
  status: number;
  type: string;
  text: string;
  ms: number;
}

/** Sends one case over its own connection; a case not answered within `timeoutMs` rejects. */
export function send(
  origin: URL,
  c: FuzzCase,
  token: string,
  timeoutMs: number,
  network = "mainnet",
): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: origin.hostname,
        port: origin.port,
        method: c.method,
        path: pathOf(c, token, network),
        headers: {
          ...Object.fromEntries(
            Object.entries(c.headers).map(([k, v]) => [k, v.replaceAll("{token}", token)]),
          ),
          connection: "close",
        },
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            type: String(res.headers["content-type"] ?? ""),
            text: Buffer.concat(chunks).toString("utf8"),
            ms: performance.now() - started,
          }),
        );
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new HangError(timeoutMs)));
    req.on("error", reject);
    req.end(c.body);
  });
}

export class HangError extends Error {
  constructor(timeoutMs: number) {
    super(`no answer in ${timeoutMs} ms`);
  }
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function parse(text: string): Json | undefined {
  try {
    return JSON.parse(text) as Json;
  } catch {
    return undefined;
  }
}

const isObject = (v: Json | undefined): v is { [key: string]: Json } =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * JSON-RPC codes of calls the gateway refused itself (not forwarded, so never charged): the
 * envelope's (-32700, -32600, -32601, -32602), the gateway's own list (-32001 … -32013), Core's
 * parameter checks (-8, -3, -1) and ElectrumX's (1).
 */
const REFUSED_RPC_CODES = new Set([
  -32700, -32600, -32601, -32602, -32001, -32002, -32003, -32004, -32005, -32006, -32007, -32010,
  -32011, -32012, -32013, -8, -3, -1, 1,
]);

/** A Core legacy (1.0) error answer: `result` null beside an RPC error that is not our INTERNAL. */
function coreLegacyError(body: Json | undefined): boolean {
  if (!isObject(body) || body.result !== null || !isObject(body.error)) return false;
  return typeof body.error.code === "number" && body.error.code !== -32603;
}

function rpcItemProblems(item: Json): string[] {
  if (!isObject(item)) return ["a JSON-RPC answer that is not an object"];
  // No `id` check here: Core leaves it out for a request that had none (a legacy notification),
  // and the route mirrors that; where the request had one, `expectedId` holds the answer to it.
  const error = item.error;
  if (error === undefined || error === null) {
    return "result" in item ? [] : ["a JSON-RPC answer with neither result nor error"];
  }
  if (!isObject(error)) return ["a JSON-RPC error that is not an object"];
  const problems: string[] = [];
  if (!Number.isInteger(error.code)) problems.push("a JSON-RPC error without an integer code");
  if (typeof error.message !== "string") problems.push("a JSON-RPC error without a message");
  return problems;
}

/** The request's own id where the protocol says the answer must carry it back. */
function expectedId(requestBody: string | undefined, answer: { [key: string]: Json }): Json[] {
  // The body as it went: sent as UTF-8, a generated string's lone surrogate is U+FFFD on the wire.
  const sent = requestBody === undefined ? undefined : Buffer.from(requestBody).toString("utf8");
  const request = sent === undefined ? undefined : parse(sent);
  if (!isObject(request) || !("id" in request)) return [];
  const code = isObject(answer.error) ? answer.error.code : undefined;
  // Unreadable or invalid envelopes are answered with id null: the id could not be trusted.
  if (code === -32700 || code === -32600) return [];
  // The gateway's own refusals before the body is read (401, 413, 429) know no id either.
  if (typeof code === "number" && code <= -32001 && code >= -32013) return [];
  return [request.id];
}

function graphqlProblems(body: Json | undefined, status: number, hasura: boolean): string[] {
  if (!isObject(body)) return ["a GraphQL answer that is not a JSON object"];
  const errors = body.errors;
  if (errors === undefined) {
    if (status >= 400) return [`HTTP ${status} without an errors array`];
    return "data" in body ? [] : ["a GraphQL answer with neither data nor errors"];
  }
  if (!Array.isArray(errors) || errors.length === 0)
    return ["errors that is not a non-empty array"];
  const problems: string[] = [];
  for (const e of errors) {
    if (!isObject(e) || typeof e.message !== "string") problems.push("an error without a message");
    else if (hasura && !(isObject(e.extensions) && typeof e.extensions.code === "string")) {
      problems.push("a Hasura error without extensions.code");
    }
  }
  return problems;
}

/** Core's HTTP 500 for an RPC error to a legacy 1.0 request, mirrored by the node route. */
export function coreLegacy500(c: FuzzCase, a: Answer): boolean {
  return a.status === 500 && c.path.startsWith("/node/") && coreLegacyError(parse(a.text));
}

/** What is wrong with an answer (nothing: an empty list). */
export function problemsOf(c: FuzzCase, a: Answer): string[] {
  const problems: string[] = [];
  const body = a.type.includes("json") ? parse(a.text) : undefined;
  if (a.type.includes("json") && body === undefined) problems.push("JSON content type, not JSON");
  if (a.status >= 500 && a.status !== 503 && !coreLegacy500(c, a)) {
    problems.push(`HTTP ${a.status}`);
  }
  if (/\bat .+\.(ts|js|cjs|mjs):\d+/.test(a.text)) problems.push("a stack trace in the answer");
  if (c.answerMsMax !== undefined && a.ms > c.answerMsMax) {
    problems.push(`answered in ${Math.round(a.ms)} ms, over its bound of ${c.answerMsMax} ms`);
  }
  // A refusal before any route (unknown path, bad method) is plain JSON, in no backend protocol.
  const plain = isObject(body) && isObject(body.error) && typeof body.error.code === "string";
  switch (c.kind) {
    case "node":
    case "electrum": {
      if (body === undefined) problems.push(`HTTP ${a.status} with no JSON-RPC body`);
      else if (Array.isArray(body)) {
        const request = c.body === undefined ? undefined : parse(c.body);
        if (Array.isArray(request) && request.length !== body.length) {
          problems.push(`a batch of ${request.length} answered with ${body.length}`);
        }
        for (const item of body) problems.push(...rpcItemProblems(item));
      } else {
        problems.push(...rpcItemProblems(body));
        if (isObject(body)) {
          for (const id of expectedId(c.body, body)) {
            if (JSON.stringify(id) !== JSON.stringify(body.id)) {
              problems.push(`id ${JSON.stringify(id)} answered as ${JSON.stringify(body.id)}`);
            }
          }
        }
      }
      break;
    }
    case "gateway":
    case "graph":
      problems.push(...graphqlProblems(body, a.status, c.kind === "graph"));
      break;
    case "path":
      if (a.status >= 400 && !plain && body !== undefined) {
        const rpc = isObject(body) && isObject(body.error);
        const gql = isObject(body) && Array.isArray(body.errors);
        if (!rpc && !gql) problems.push(`HTTP ${a.status} with no error in the body`);
      }
      break;
  }
  return problems;
}

/**
 * Whether the gateway refused the input outright (so it must not have been charged): an HTTP
 * error status, a JSON-RPC answer whose every call is one of the gateway's own refusals, a
 * GraphQL answer without data and without an error the node answered (`rpcCode`: a height out of
 * range, say, which the node had to look up and which is charged, as on the node route).
 */
export function refused(c: FuzzCase, a: Answer): boolean {
  if (a.status >= 400 && !(a.status === 500 && c.path.startsWith("/node/"))) return true;
  const body = parse(a.text);
  if (c.kind === "node" || c.kind === "electrum") {
    const items = Array.isArray(body) ? body : [body];
    return items.every(
      (item) =>
        isObject(item) &&
        isObject(item.error) &&
        typeof item.error.code === "number" &&
        REFUSED_RPC_CODES.has(item.error.code),
    );
  }
  if (c.kind === "gateway" || c.kind === "graph") {
    if (!isObject(body)) return true;
    const fromNode =
      Array.isArray(body.errors) &&
      body.errors.some(
        (e) => isObject(e) && isObject(e.extensions) && typeof e.extensions.rpcCode === "number",
      );
    return (body.data === undefined || body.data === null) && !fromNode;
  }
  return false;
}
