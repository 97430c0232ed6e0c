import { EventEmitter } from "node:events";
import { createServer, type Server, type Socket } from "node:net";
import { BAD_REQUEST, bindArgs } from "../../protocol/electrum/params.ts";
import { pyJsonDumps, pyStr, pyThousands } from "../../protocol/electrum/python-text.ts";
import { isJsonNumber, isJsonObject, type Json, parseJson } from "../../protocol/json/json.ts";
import { LineSplitter } from "../../protocol/json/lines.ts";
import type { Handler, SessionState } from "./handler.ts";
import { ElectrumRpcError } from "./rpc-error.ts";

/** What devnet counts, so tests can tell what reached the server. */
export interface ElectrumStats {
  /** Connections accepted since start. */
  connections: number;
  /** Connections open now. */
  open: number;
  /** Requests received (batch items counted one by one). */
  requests: number;
  methods: Record<string, number>;
}

export interface DevnetElectrumServer {
  host: string;
  port: number;
  /** `tcp://127.0.0.1:<port>`. */
  url: string;
  stats: ElectrumStats;
  /**
   * Emits "request" (method) after counting it, "answered" (method, params) once its result is
   * ready (what the call changes is done by then), "connection" and "disconnect".
   */
  events: EventEmitter;
  /** Sends the tip to every session subscribed to headers (after the chain changed). */
  announceTip(): void;
  /**
   * Re-reads every session's subscribed script hashes soon (once however often it is asked within
   * one turn of the event loop) and notifies those whose status changed (after the mempool or the
   * chain changed).
   */
  notifyScripthashes(): void;
  /** How many sessions are subscribed to this script hash now (what tests can observe). */
  scripthashSubscribers(scripthash: string): number;
  /** Closes the listener and every connection, like a killed ElectrumX. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export interface ElectrumServerOptions {
  methods: Record<string, Handler>;
  /** The headers.subscribe result, for notifications. */
  tip: () => Json;
  /** A script hash's status now, for notifications (null: no history). */
  status?: (scripthash: string) => string | null;
  host?: string;
  port?: number;
  /** ElectrumX MAX_RECV: a longer message drops the connection. */
  recvBytesMax?: number;
  /** ElectrumX MAX_SEND: a longer answer is replaced by an error. */
  sendBytesMax?: number;
  /** ElectrumX SESSION_TIMEOUT: a client silent this long is disconnected. */
  idleTimeoutMs?: number;
  onClose?: () => Promise<void>;
}

type Protocol = "v1" | "v2";

/**
 * devnet's Electrum server, behaving as ElectrumX (electrumx/server/session.py over aiorpcx):
 * newline-delimited JSON-RPC over TCP; `server.version` must come first (else code 1 and a
 * disconnect) and only once; requests run concurrently and are answered as they finish, each by
 * its id; batches answered whole, in order; replies written as Python's json.dumps writes them.
 */
export async function startElectrumTcp(opts: ElectrumServerOptions): Promise<DevnetElectrumServer> {
  const host = opts.host ?? "127.0.0.1";
  const recvBytesMax = opts.recvBytesMax ?? 1_000_000;
  // env.py: ElectrumX raises MAX_SEND to at least 350,000 whatever it is given.
  const sendBytesMax = Math.max(350_000, opts.sendBytesMax ?? 8_100_000);
  const idleTimeoutMs = opts.idleTimeoutMs ?? 600_000;
  const stats: ElectrumStats = { connections: 0, open: 0, requests: 0, methods: {} };
  const events = new EventEmitter();
  const sessions = new Map<Socket, SessionState>();
  let server: Server;
  let port = opts.port ?? 0;
  let notifyScheduled = false;

  function accept(socket: Socket): void {
    stats.connections += 1;
    stats.open += 1;
    const abort = new AbortController();
    const session: SessionState = {
      svSeen: false,
      client: "unknown",
      protocol: null,
      subscribedHeaders: false,
      scripthashes: new Map(),
      signal: abort.signal,
    };
    sessions.set(socket, session);
    events.emit("connection");
    const splitter = new LineSplitter(recvBytesMax);
    let protocol: Protocol | null = null;
    let closing = false;
    socket.setNoDelay(true);
    socket.setTimeout(idleTimeoutMs, () => socket.destroy());
    socket.on("error", () => {});
    socket.on("close", () => {
      abort.abort();
      sessions.delete(socket);
      stats.open -= 1;
      events.emit("disconnect");
    });
    socket.on("data", (chunk: Buffer) => {
      const lines = splitter.push(chunk);
      if (lines === "too-long") {
        // aiorpcx's framer refuses the message; devnet then drops the connection.
        socket.destroy();
        return;
      }
      for (const line of lines) void handleLine(line);
    });

    const send = (text: string, thenClose = false) => {
      if (socket.destroyed || closing) return;
      socket.write(`${text}\n`);
      if (thenClose) {
        closing = true;
        socket.end();
      }
    };

    async function handleLine(line: string): Promise<void> {
      let payload: Json;
      try {
        payload = parseJson(line);
      } catch (err) {
        send(errorMessage("v2", null, -32700, `cannot decode JSON: ${(err as Error).message}`));
        return;
      }
      protocol ??= detect(payload);
      const p = protocol;
      if (Array.isArray(payload)) {
        if (payload.length === 0) {
          send(errorMessage(p, null, -32600, "empty batch"));
          return;
        }
        const parts = await Promise.all(payload.map((item) => handleRequest(p, item)));
        const replies = parts.filter((r): r is Reply => r !== null);
        if (replies.length > 0) {
          send(
            `[${replies.map((r) => r.text).join(", ")}]`,
            replies.some((r) => r.disconnect),
          );
        }
        return;
      }
      const reply = await handleRequest(p, payload);
      if (reply) send(reply.text, reply.disconnect);
    }

    async function handleRequest(p: Protocol, payload: Json): Promise<Reply | null> {
      if (!isJsonObject(payload)) {
        return reply(p, null, -32600, "request object must be a dictionary");
      }
      const hasId = "id" in payload;
      const id = hasId ? payload.id! : null;
      if (hasId && id !== null && typeof id !== "string" && !isJsonNumber(id)) {
        return reply(p, null, -32600, `invalid "id": ${pyStr(id)}`);
      }
      const version = payload.jsonrpc;
      if (version !== undefined && version !== "2.0" && version !== "1.0") {
        return reply(p, id, -32600, '"jsonrpc" is not "2.0"');
      }
      const method = payload.method;
      if (typeof method !== "string") {
        return reply(p, id, -32601, "request method must be a string");
      }
      const params = payload.params ?? [];
      if (!Array.isArray(params) && !isJsonObject(params)) {
        return reply(p, id, -32602, `invalid request arguments: ${pyStr(params)}`);
      }
      // ElectrumX does not take notifications from clients: no id, no answer.
      if (!hasId) return null;
      stats.requests += 1;
      stats.methods[method] = (stats.methods[method] ?? 0) + 1;
      events.emit("request", method);
      if (!session.svSeen && method !== "server.version") {
        return {
          ...reply(p, id, BAD_REQUEST, "use server.version to identify client"),
          disconnect: true,
        };
      }
      try {
        const result = await invoke(opts.methods[method], method, params);
        events.emit("answered", method, params);
        const text = resultMessage(p, id, result);
        if (text.length > sendBytesMax) {
          return reply(
            p,
            id,
            -32600,
            `response too large (over ${pyThousands(sendBytesMax)} bytes`,
          );
        }
        return { text, disconnect: false };
      } catch (err) {
        if (err instanceof ElectrumRpcError)
          return { ...reply(p, id, err.code, err.message), disconnect: err.disconnect };
        if (session.signal.aborted) return null;
        return reply(p, id, -32603, "internal server error");
      }
    }

    function invoke(
      handler: Handler | undefined,
      method: string,
      params: Json[] | { [key: string]: Json },
    ) {
      if (!handler) throw new ElectrumRpcError(-32601, `unknown method "${method}"`);
      const args = bindArgs(method, params, handler.required, handler.optional);
      if (!Array.isArray(args)) throw new ElectrumRpcError(args.code, args.message);
      return handler.run(session, args);
    }
  }

  async function listen(): Promise<void> {
    server = createServer(accept);
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => resolve());
    });
    port = (server.address() as { port: number }).port;
  }

  async function stop(): Promise<void> {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of sessions.keys()) socket.destroy();
    await closed;
  }

  await listen();
  return {
    host,
    get port() {
      return port;
    },
    get url() {
      return `tcp://${host}:${port}`;
    },
    stats,
    events,
    announceTip() {
      const text = pyJsonDumps({
        jsonrpc: "2.0",
        method: "blockchain.headers.subscribe",
        params: [opts.tip()],
      });
      for (const [socket, session] of sessions) {
        if (session.subscribedHeaders && !socket.destroyed) socket.write(`${text}\n`);
      }
    },
    notifyScripthashes() {
      if (notifyScheduled || !opts.status) return;
      notifyScheduled = true;
      // ElectrumX too notifies per refresh, not per transaction: a burst makes one pass.
      setImmediate(() => {
        notifyScheduled = false;
        notifyChangedStatuses(sessions, opts.status!);
      });
    },
    scripthashSubscribers(scripthash) {
      let count = 0;
      for (const session of sessions.values()) if (session.scripthashes.has(scripthash)) count += 1;
      return count;
    },
    stop,
    restart: listen,
    async close() {
      if (server.listening) await stop();
      await opts.onClose?.();
    },
  };
}

/**
 * ElectrumX's session.notify for script hashes: each session's subscribed scripts whose status is
 * no longer the one it was told get `blockchain.scripthash.subscribe` with the new status, per
 * connection (one status read per script hash, however many sessions hold it).
 */
function notifyChangedStatuses(
  sessions: Map<Socket, SessionState>,
  status: (scripthash: string) => string | null,
): void {
  const now = new Map<string, string | null>();
  for (const [socket, session] of sessions) {
    for (const [hash, told] of session.scripthashes) {
      if (!now.has(hash)) now.set(hash, status(hash));
      const current = now.get(hash)!;
      if (current === told || socket.destroyed) continue;
      session.scripthashes.set(hash, current);
      const text = pyJsonDumps({
        jsonrpc: "2.0",
        method: "blockchain.scripthash.subscribe",
        params: [hash, current],
      });
      socket.write(`${text}\n`);
    }
  }
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
