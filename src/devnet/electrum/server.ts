import { EventEmitter } from "node:events";
import { createServer, type Server, type Socket } from "node:net";
import { pyJsonDumps } from "../../protocol/electrum/python-text.ts";
import type { Json } from "../../protocol/json/json.ts";
import type { Handler, SessionState } from "./handler.ts";
import { ElectrumSession, type ElectrumStats } from "./session.ts";

export type { ElectrumStats };

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
  const limits = { recvBytesMax, sendBytesMax, idleTimeoutMs };
  const stats: ElectrumStats = { connections: 0, open: 0, requests: 0, messages: 0, methods: {} };
  const events = new EventEmitter();
  const sessions = new Map<Socket, SessionState>();
  let server: Server;
  let port = opts.port ?? 0;
  let notifyScheduled = false;

  function accept(socket: Socket): void {
    new ElectrumSession(socket, limits, sessions, { methods: opts.methods, stats, events });
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
