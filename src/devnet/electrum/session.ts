import type { EventEmitter } from "node:events";
import type { Socket } from "node:net";
import { BAD_REQUEST, bindArgs } from "../../protocol/electrum/params.ts";
import { pyJsonDumps, pyStr, pyThousands } from "../../protocol/electrum/python-text.ts";
import { isJsonNumber, isJsonObject, type Json, parseJson } from "../../protocol/json/json.ts";
import { LineSplitter } from "../../protocol/json/lines.ts";
import type { Handler, SessionState } from "./handler.ts";
import { ElectrumRpcError } from "./rpc-error.ts";

type Protocol = "v1" | "v2";

/** What devnet counts, so tests can tell what reached the server. */
export interface ElectrumStats {
  /** Connections accepted since start. */
  connections: number;
  /** Connections open now. */
  open: number;
  /** Requests received (batch items counted one by one). */
  requests: number;
  /** Messages received: a request, or a whole batch, each a round trip. */
  messages: number;
  methods: Record<string, number>;
}

/** ElectrumX's limits on a session: MAX_RECV, MAX_SEND and SESSION_TIMEOUT. */
export interface SessionLimits {
  recvBytesMax: number;
  sendBytesMax: number;
  idleTimeoutMs: number;
}

/** What every session of one server shares. */
export interface SessionDeps {
  methods: Record<string, Handler>;
  stats: ElectrumStats;
  events: EventEmitter;
}

/**
 * One client connection, as an ElectrumX session: lines read, each request answered as it
 * finishes, batches whole and in order, `server.version` first.
 */
export class ElectrumSession {
  private readonly state: SessionState;
  private readonly abort = new AbortController();
  private readonly splitter: LineSplitter;
  private protocol: Protocol | null = null;
  private closing = false;

  constructor(
    private readonly socket: Socket,
    private readonly limits: SessionLimits,
    sessions: Map<Socket, SessionState>,
    private readonly deps: SessionDeps,
  ) {
    const { stats, events } = deps;
    stats.connections += 1;
    stats.open += 1;
    this.state = {
      svSeen: false,
      client: "unknown",
      protocol: null,
      subscribedHeaders: false,
      scripthashes: new Map(),
      signal: this.abort.signal,
    };
    sessions.set(socket, this.state);
    events.emit("connection");
    this.splitter = new LineSplitter(limits.recvBytesMax);
    socket.setNoDelay(true);
    socket.setTimeout(limits.idleTimeoutMs, () => socket.destroy());
    socket.on("error", () => {});
    socket.on("close", () => {
      this.abort.abort();
      sessions.delete(socket);
      stats.open -= 1;
      events.emit("disconnect");
    });
    socket.on("data", (chunk: Buffer) => this.read(chunk));
  }

  private read(chunk: Buffer): void {
    const lines = this.splitter.push(chunk);
    if (lines === "too-long") {
      // aiorpcx's framer refuses the message; devnet then drops the connection.
      this.socket.destroy();
      return;
    }
    for (const line of lines) void this.handleLine(line);
  }

  private send(text: string, thenClose = false): void {
    if (this.socket.destroyed || this.closing) return;
    this.socket.write(`${text}\n`);
    if (thenClose) {
      this.closing = true;
      this.socket.end();
    }
  }

  private async handleLine(line: string): Promise<void> {
    this.deps.stats.messages += 1;
    let payload: Json;
    try {
      payload = parseJson(line);
    } catch (err) {
      this.send(errorMessage("v2", null, -32700, `cannot decode JSON: ${(err as Error).message}`));
      return;
    }
    this.protocol ??= detect(payload);
    const p = this.protocol;
    if (!Array.isArray(payload)) {
      const reply = await this.handleRequest(p, payload);
      if (reply) this.send(reply.text, reply.disconnect);
      return;
    }
    if (payload.length === 0) {
      this.send(errorMessage(p, null, -32600, "empty batch"));
      return;
    }
    const parts = await Promise.all(payload.map((item) => this.handleRequest(p, item)));
    const replies = parts.filter((r): r is Reply => r !== null);
    if (replies.length > 0) {
      const text = `[${replies.map((r) => r.text).join(", ")}]`;
      this.send(
        text,
        replies.some((r) => r.disconnect),
      );
    }
  }

  private async handleRequest(p: Protocol, payload: Json): Promise<Reply | null> {
    const request = checkRequest(p, payload);
    if (!("method" in request)) return request.refused;
    const { id, method, params } = request;
    // ElectrumX does not take notifications from clients: no id, no answer.
    if (!request.hasId) return null;
    const { stats, events } = this.deps;
    stats.requests += 1;
    stats.methods[method] = (stats.methods[method] ?? 0) + 1;
    events.emit("request", method);
    if (!this.state.svSeen && method !== "server.version") {
      return {
        ...reply(p, id, BAD_REQUEST, "use server.version to identify client"),
        disconnect: true,
      };
    }
    try {
      const result = await this.invoke(method, params);
      events.emit("answered", method, params);
      const text = resultMessage(p, id, result);
      const max = this.limits.sendBytesMax;
      if (text.length > max) {
        return reply(p, id, -32600, `response too large (over ${pyThousands(max)} bytes`);
      }
      return { text, disconnect: false };
    } catch (err) {
      if (err instanceof ElectrumRpcError)
        return { ...reply(p, id, err.code, err.message), disconnect: err.disconnect };
      if (this.state.signal.aborted) return null;
      return reply(p, id, -32603, "internal server error");
    }
  }

  private invoke(method: string, params: Json[] | { [key: string]: Json }) {
    const handler = this.deps.methods[method];
    if (!handler) throw new ElectrumRpcError(-32601, `unknown method "${method}"`);
    const args = bindArgs(method, params, handler.required, handler.optional);
    if (!Array.isArray(args)) throw new ElectrumRpcError(args.code, args.message);
    return handler.run(this.state, args);
  }
}

type Checked =
  | { refused: Reply | null }
  | { hasId: boolean; id: Json; method: string; params: Json[] | { [key: string]: Json } };

/** A request's envelope, checked as aiorpcx checks it before the method runs. */
function checkRequest(p: Protocol, payload: Json): Checked {
  if (!isJsonObject(payload)) {
    return { refused: reply(p, null, -32600, "request object must be a dictionary") };
  }
  const hasId = "id" in payload;
  const id = hasId ? payload.id! : null;
  if (hasId && id !== null && typeof id !== "string" && !isJsonNumber(id)) {
    return { refused: reply(p, null, -32600, `invalid "id": ${pyStr(id)}`) };
  }
  const version = payload.jsonrpc;
  if (version !== undefined && version !== "2.0" && version !== "1.0") {
    return { refused: reply(p, id, -32600, '"jsonrpc" is not "2.0"') };
  }
  const method = payload.method;
  if (typeof method !== "string") {
    return { refused: reply(p, id, -32601, "request method must be a string") };
  }
  const params = payload.params ?? [];
  if (!Array.isArray(params) && !isJsonObject(params)) {
    return { refused: reply(p, id, -32602, `invalid request arguments: ${pyStr(params)}`) };
  }
  return { hasId, id, method, params };
}

interface Reply {
  text: string;
  disconnect: boolean;
}

function reply(p: Protocol, id: Json, code: number, message: string): Reply {
  return { text: errorMessage(p, id, code, message), disconnect: false };
}

/** JSONRPCAutoDetect: an explicit "1.0" (or a v1-shaped message) means v1; otherwise v2. */
function detect(payload: Json): Protocol {
  const first = Array.isArray(payload) ? payload[0] : payload;
  if (!isJsonObject(first)) return "v2";
  if (first.jsonrpc === "1.0" || ("result" in first && "error" in first && !("jsonrpc" in first))) {
    return "v1";
  }
  return "v2";
}

function resultMessage(p: Protocol, id: Json, result: Json): string {
  return pyJsonDumps(p === "v1" ? { result, error: null, id } : { jsonrpc: "2.0", result, id });
}

function errorMessage(p: Protocol, id: Json, code: number, message: string): string {
  const error = { code, message };
  return pyJsonDumps(p === "v1" ? { result: null, error, id } : { jsonrpc: "2.0", error, id });
}
