import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import {
  legacyErrorStatus,
  parseRequestBody,
  type RequestBody,
  replyObject,
} from "../../protocol/json/envelope.ts";
import { type Json, stringifyJson } from "../../protocol/json/json.ts";
import type { RpcErrorObject } from "../../protocol/json/types.ts";
import { Gate } from "../gate.ts";
import { listenDevnet } from "../listen.ts";
import { RpcError } from "./rpc-error.ts";

/** A method of devnet's Core: positional or named params in, a result out, or it throws RpcError. */
export type RpcMethod = (params: Json[] | { [key: string]: Json }) => unknown;

/** What devnet counts, so tests can assert on round trips the gateway made. */
export interface CoreStats {
  httpRequests: number;
  /** Calls read from requests' bodies, counted before any hold (the node has them). */
  callsRead: number;
  /** Calls executed (a held call counts once released). */
  calls: number;
}

export interface DevnetCoreServer {
  server: Server;
  url: string;
  user: string;
  password: string;
  stats: CoreStats;
  /**
   * Requests read from now on wait, unanswered, until the returned function is called: how tests
   * keep calls in flight (a shutdown while the node is slow) without sleeping.
   */
  hold(): () => void;
  /**
   * Requests read from now on are answered with this HTTP status and a plain-text body, unexecuted
   * (503 with "Work queue depth exceeded" is Core's answer when its work queue is full), until the
   * returned function is called: how tests make the node fail without stopping it.
   */
  failWith(status: number): () => void;
  /**
   * Calls `seen` with the calls of every request read from now on (held or failed ones too), in
   * the request's order (a single call is a list of one), until the returned function is called:
   * what tests use to see how the gateway grouped its calls into round trips.
   */
  watch(seen: (calls: WatchedCall[]) => void): () => void;
  close(): Promise<void>;
}

/** One call as devnet's Core read it (see DevnetCoreServer.watch). */
export interface WatchedCall {
  method: string;
  params: Json[] | { [key: string]: Json };
}

const BODY_BYTES_MAX = 32 * 1024 * 1024;
const WWW_AUTHENTICATE = 'Basic realm="jsonrpc"';

/**
 * Bitcoin Core's HTTP JSON-RPC server as v28+ behaves (src/httprpc.cpp, src/rpc/request.cpp):
 * POST only, basic auth with the 250 ms penalty, JSON-RPC 1.0 (HTTP errors, both result and error
 * keys) and 2.0 (HTTP 200, one of them) envelopes, batches, notifications, compact JSON plus `\n`.
 */
export async function startCoreHttp(opts: {
  methods: Record<string, RpcMethod>;
  user: string;
  password: string;
  host?: string;
  port?: number;
}): Promise<DevnetCoreServer> {
  const stats: CoreStats = { httpRequests: 0, callsRead: 0, calls: 0 };
  const gate = new Gate();
  let failing: number | null = null;
  const watchers = new Set<(calls: WatchedCall[]) => void>();
  const expected = Buffer.from(
    `Basic ${Buffer.from(`${opts.user}:${opts.password}`).toString("base64")}`,
  );
  const execute = (item: Call) => executeCall(opts.methods, stats, item);
  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    stats.httpRequests += 1;
    if (req.method !== "POST") {
      res.writeHead(405);
      res.end("JSONRPC server handles only POST requests");
      return;
    }
    if (!(await authorized(req, res, expected))) return;
    const body = await readBody(req, res);
    if (body === null) return;
    const request = parseRequestBody(body, undefined, "refuse");
    if (request.kind !== "fatal") {
      const items = request.kind === "single" ? [request.item] : request.items;
      const calls = items.flatMap((i) =>
        i.kind === "invalid" ? [] : [{ method: i.method, params: i.params }],
      );
      stats.callsRead += calls.length;
      for (const seen of watchers) seen(calls);
    }
    await gate.passed();
    if (failing !== null) {
      res.writeHead(failing);
      res.end(failing === 503 ? "Work queue depth exceeded" : "Internal Server Error");
      return;
    }
    writeReply(res, handleBody(request, execute));
  }

  const { server, port, close } = await listenDevnet(serve, {
    host: opts.host,
    port: opts.port,
    keepAliveTimeoutMs: 30_000, // -rpcservertimeout
  });
  return {
    server,
    url: `http://127.0.0.1:${port}/`,
    user: opts.user,
    password: opts.password,
    stats,
    hold: () => gate.hold(),
    failWith(status) {
      failing = status;
      return () => {
        failing = null;
      };
    },
    watch(seen) {
      watchers.add(seen);
      return () => watchers.delete(seen);
    },
    close,
  };
}

type Call = { method: string; params: Json[] | { [key: string]: Json } };
type Answer = { result: unknown } | { error: RpcErrorObject };

/** Basic auth as Core checks it: a wrong password waits (Core's deterrent) before its 401. */
async function authorized(
  req: IncomingMessage,
  res: ServerResponse,
  expected: Buffer,
): Promise<boolean> {
  const auth = req.headers.authorization;
  if (auth) {
    const given = Buffer.from(auth);
    if (given.length === expected.length && timingSafeEqual(given, expected)) return true;
    await sleep(250); // Core's deterrent against guessing
  }
  res.writeHead(401, { "www-authenticate": WWW_AUTHENTICATE });
  res.end();
  return false;
}

/** The body as text, or null once answered 413 for being over BODY_BYTES_MAX. */
async function readBody(req: IncomingMessage, res: ServerResponse): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > BODY_BYTES_MAX) {
      res.writeHead(413);
      res.end();
      return null;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function writeReply(res: ServerResponse, reply: { status: number; body?: unknown }): void {
  if (reply.status === 204) {
    res.writeHead(204);
    res.end();
    return;
  }
  const text = `${stringifyJson(reply.body)}\n`;
  // Core's reply is written whole (libevent's evhttp_send_reply): it says its length.
  res.writeHead(reply.status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}

/** The answer to a request body: its status and JSON, by Core's rules for each version. */
function handleBody(
  request: RequestBody,
  execute: (item: Call) => Answer,
): { status: number; body?: unknown } {
  if (request.kind === "fatal") {
    // Nothing parsed yet: JSONRPCRequest's defaults, a null id and the legacy version.
    return {
      status: legacyErrorStatus(request.error.code),
      body: replyObject("1.0", null, request),
    };
  }
  if (request.kind === "single") {
    const item = request.item;
    // A request that does not parse is answered the legacy way (an HTTP error) whatever its version.
    if (item.kind === "invalid") {
      return {
        status: legacyErrorStatus(item.error.code),
        body: replyObject(item.version, item.id, item),
      };
    }
    const answer = execute(item);
    if (item.version === "2.0") {
      return item.id === undefined
        ? { status: 204 }
        : { status: 200, body: replyObject("2.0", item.id, answer) };
    }
    const status = "error" in answer ? legacyErrorStatus(answer.error.code) : 200;
    return { status, body: replyObject("1.0", item.id, answer) };
  }
  const replies: unknown[] = [];
  for (const item of request.items) {
    if (item.kind === "invalid") {
      replies.push(replyObject(item.version, item.id, item));
      continue;
    }
    const answer = execute(item);
    // Notifications are executed but get no entry.
    if (!(item.version === "2.0" && item.id === undefined))
      replies.push(replyObject(item.version, item.id, answer));
  }
  if (replies.length === 0 && request.items.length > 0) return { status: 204 };
  return { status: 200, body: replies };
}

function executeCall(methods: Record<string, RpcMethod>, stats: CoreStats, item: Call): Answer {
  stats.calls += 1;
  try {
    const method = methods[item.method];
    if (!method) throw new RpcError(-32601, "Method not found");
    return { result: method(item.params) };
  } catch (err) {
    return { error: toRpcError(err).toObject() };
  }
}

function toRpcError(err: unknown): RpcError {
  if (err instanceof RpcError) return err;
  return new RpcError(-1, err instanceof Error ? err.message : String(err));
}
