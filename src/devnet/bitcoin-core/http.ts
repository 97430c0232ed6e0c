import { timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { isJsonObject, type Json, parseJson, stringifyJson } from "../../jsonrpc/json.ts";
import { RpcError } from "./rpc-error.ts";

/** A method of devnet's Core: positional or named params in, a result out, or it throws RpcError. */
export type RpcMethod = (params: Json[] | { [key: string]: Json }) => unknown;

type Version = "1.0" | "2.0";

/** What devnet counts, so tests can assert on round trips the gateway made. */
export interface CoreStats {
  httpRequests: number;
  calls: number;
}

export interface DevnetCoreServer {
  server: Server;
  url: string;
  user: string;
  password: string;
  stats: CoreStats;
  close(): Promise<void>;
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
  const stats: CoreStats = { httpRequests: 0, calls: 0 };
  const expected = Buffer.from(`Basic ${Buffer.from(`${opts.user}:${opts.password}`).toString("base64")}`);
  const server = createServer((req, res) => {
    stats.httpRequests += 1;
    serve(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== "POST") {
      res.writeHead(405);
      res.end("JSONRPC server handles only POST requests");
      return;
    }
    const auth = req.headers.authorization;
    if (!auth) {
      res.writeHead(401, { "www-authenticate": WWW_AUTHENTICATE });
      res.end();
      return;
    }
    const given = Buffer.from(auth);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      await sleep(250); // Core's deterrent against guessing
      res.writeHead(401, { "www-authenticate": WWW_AUTHENTICATE });
      res.end();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > BODY_BYTES_MAX) {
        res.writeHead(413);
        res.end();
        return;
      }
      chunks.push(chunk);
    }
    const reply = handleBody(Buffer.concat(chunks).toString("utf8"));
    if (reply.status === 204) {
      res.writeHead(204);
      res.end();
      return;
    }
    const text = `${stringifyJson(reply.body)}\n`;
    res.writeHead(reply.status, { "content-type": "application/json" });
    res.end(text);
  }

  function handleBody(body: string): { status: number; body?: unknown } {
    let request: Json;
    try {
      request = parseJson(body);
    } catch {
      // Nothing parsed yet: JSONRPCRequest's defaults, a null id and the legacy version.
      return legacyError(null, new RpcError(-32700, "Parse error"), "1.0");
    }
    if (isJsonObject(request)) {
      const parsed = parseRequest(request);
      if (parsed instanceof ParseFailure) return legacyError(parsed.id, parsed.error, parsed.version);
      if (parsed.version === "2.0") {
        const reply = execute(parsed, true);
        return parsed.id === undefined ? { status: 204 } : { status: 200, body: reply };
      }
      try {
        return { status: 200, body: execute(parsed, false) };
      } catch (err) {
        return legacyError(parsed.id, toRpcError(err), "1.0");
      }
    }
    if (Array.isArray(request)) {
      const replies: unknown[] = [];
      for (const item of request) {
        const parsed = isJsonObject(item)
          ? parseRequest(item)
          : new ParseFailure(null, new RpcError(-32600, "Invalid Request object"), "1.0");
        if (parsed instanceof ParseFailure) {
          replies.push(replyObject(undefined, parsed.error.toObject(), parsed.id, parsed.version));
          continue;
        }
        const reply = execute(parsed, true);
        if (!(parsed.version === "2.0" && parsed.id === undefined)) replies.push(reply);
      }
      if (replies.length === 0 && request.length > 0) return { status: 204 };
      return { status: 200, body: replies };
    }
    return legacyError(null, new RpcError(-32700, "Top-level object parse error"), "1.0");
  }

  function execute(req: ParsedRequest, catchErrors: boolean): unknown {
    stats.calls += 1;
    try {
      const method = opts.methods[req.method];
      if (!method) throw new RpcError(-32601, "Method not found");
      return replyObject(method(req.params), undefined, req.id, req.version);
    } catch (err) {
      if (!catchErrors) throw err;
      return replyObject(undefined, toRpcError(err).toObject(), req.id, req.version);
    }
  }

  server.keepAliveTimeout = 30_000; // -rpcservertimeout
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, opts.host ?? "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    server,
    url: `http://127.0.0.1:${port}/`,
    user: opts.user,
    password: opts.password,
    stats,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

interface ParsedRequest {
  /** undefined: the key was absent (a notification under 2.0). */
  id: Json | undefined;
  version: Version;
  method: string;
  params: Json[] | { [key: string]: Json };
}

class ParseFailure {
  constructor(
    readonly id: Json | undefined,
    readonly error: RpcError,
    readonly version: Version,
  ) {}
}

/** JSONRPCRequest::parse: the id first (so errors carry it), then version, method, params. */
function parseRequest(request: { [key: string]: Json }): ParsedRequest | ParseFailure {
  const id = "id" in request ? request.id : undefined;
  let version: Version = "1.0";
  const v = request.jsonrpc;
  if (v !== undefined && v !== null) {
    if (typeof v !== "string") return new ParseFailure(id, new RpcError(-32600, "jsonrpc field must be a string"), version);
    if (v === "2.0") version = "2.0";
    else if (v !== "1.0") return new ParseFailure(id, new RpcError(-32600, "JSON-RPC version not supported"), version);
  }
  const method = request.method;
  if (method === undefined || method === null) return new ParseFailure(id, new RpcError(-32600, "Missing method"), version);
  if (typeof method !== "string") return new ParseFailure(id, new RpcError(-32600, "Method must be a string"), version);
  const params = request.params;
  if (params === undefined || params === null) return { id, version, method, params: [] };
  if (Array.isArray(params) || isJsonObject(params)) return { id, version, method, params };
  return new ParseFailure(id, new RpcError(-32600, "Params must be an array or object"), version);
}

/** JSONRPCReplyObj: `jsonrpc` only in 2.0; 1.0 carries both result and error; then the id. */
function replyObject(result: unknown, error: unknown, id: Json | undefined, version: Version) {
  const reply: Record<string, unknown> = {};
  if (version === "2.0") reply.jsonrpc = "2.0";
  if (version === "1.0" || error === undefined) reply.result = result ?? null;
  if (version === "1.0" || error !== undefined) reply.error = error ?? null;
  if (id !== undefined) reply.id = id;
  return reply;
}

/** JSONErrorReply: the legacy HTTP statuses, 400 for -32600, 404 for -32601, else 500. */
function legacyError(id: Json | undefined, error: RpcError, version: Version) {
  const status = error.code === -32600 ? 400 : error.code === -32601 ? 404 : 500;
  return { status, body: replyObject(undefined, error.toObject(), id, version) };
}

function toRpcError(err: unknown): RpcError {
  if (err instanceof RpcError) return err;
  return new RpcError(-1, err instanceof Error ? err.message : String(err));
}
