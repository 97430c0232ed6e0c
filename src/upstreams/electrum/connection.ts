import { connect as netConnect, type Socket } from "node:net";
import { connect as tlsConnect } from "node:tls";
import { type GatewayError, gatewayError } from "../../protocol/errors/codes.ts";
import { responseTooLarge } from "../../protocol/errors/too-large.ts";
import {
  isJsonObject,
  type Json,
  jsonInteger,
  parseJson,
  stringifyJson,
} from "../../protocol/json/json.ts";
import {
  idOfLongBatch,
  idOfLongLine,
  LineSplitter,
  type LongLine,
} from "../../protocol/json/lines.ts";
import type { RpcAnswer, RpcCall } from "../../protocol/json/types.ts";
import type { CancelSignal } from "../../util/cancel.ts";
import { InFlightMap } from "../../util/in-flight-map.ts";

/** An answer (result or the server's JSON-RPC error), or why there is none. */
export type ElectrumOutcome =
  /** `bytes`: the answer's line, when the line was this answer alone. */
  | { ok: true; answer: RpcAnswer; bytes?: number }
  | { ok: false; retryable: boolean; error: GatewayError };

/** The best block as a headers subscription reports it. */
export interface ElectrumTip {
  height: number;
  /** The 80-byte header, hex. */
  hex: string;
}

export interface ConnectionOptions {
  /** host:port, for logs and audit records. */
  name: string;
  host: string;
  port: number;
  tls: { rejectUnauthorized: boolean; ca?: Buffer } | null;
  timeoutMs: number;
  connectTimeoutMs: number;
  lineBytesMax: number;
  inFlightMax: number;
  pingIntervalMs: number;
  clientName: string;
  /** The versions asked for in server.version; PROTOCOL_RANGE unless said otherwise. */
  protocolRange?: string[];
  onTip(tip: ElectrumTip): void;
  /** Any other notification the server sends (a script hash's new status). */
  onNotification?(method: string, params: Json[]): void;
  onClose(): void;
}

/** What a server said to our server.version: its software and the protocol agreed. */
export interface ElectrumServerVersion {
  software: string;
  protocol: string;
}

/**
 * The protocol version we speak: 1.4, as [min, max]. The Electrum route serves protocol 1.4's
 * answers and passes servers' answers through, so its connections must not agree a later version
 * whose shapes differ (1.6's blockchain.block.headers gives a list of headers, not one hex string).
 */
export const PROTOCOL_RANGE = ["1.4", "1.4"];

interface Pending {
  resolve(outcome: ElectrumOutcome): void;
  timer: NodeJS.Timeout;
  sentAt: number;
  /** The ids of the batch it went in, when it went in one: they share one answer line. */
  batch?: number[];
}

/**
 * One persistent connection to an Electrum server: `server.version` first (the server drops
 * clients that skip it), then a headers subscription that keeps the tip current. Requests are
 * pipelined and matched to answers by id; each has its own timeout, and every pending request is
 * settled — answered, timed out, or failed when the connection drops — so none can hang.
 */
export class ElectrumConnection {
  private readonly pending = new InFlightMap<number, Pending>();
  private nextId = 0;
  private closed = false;
  private lastReceivedAt = Date.now();
  private pingTimer: NodeJS.Timeout | undefined;
  private closeError: GatewayError | undefined;
  /** Set once the handshake's server.version was answered. */
  serverVersion: ElectrumServerVersion | null = null;

  private constructor(
    private readonly socket: Socket,
    private readonly opts: ConnectionOptions,
  ) {
    const splitter = new LineSplitter(opts.lineBytesMax);
    socket.on("data", (chunk: Buffer) => {
      this.lastReceivedAt = Date.now();
      for (const line of splitter.read(chunk)) {
        if (typeof line === "string") this.receive(line);
        else this.receiveLong(line);
        if (this.closed) return;
      }
    });
    socket.on("error", () => {});
    socket.on("close", () => this.fail());
  }

  /** Connects, identifies with server.version and subscribes to headers. */
  static open(
    opts: ConnectionOptions,
  ): Promise<{ ok: true; connection: ElectrumConnection } | { ok: false; error: GatewayError }> {
    return new Promise((resolve) => {
      const unreachable = (why: string) =>
        resolve({
          ok: false,
          error: gatewayError("UPSTREAM_UNAVAILABLE", "the Electrum server is unreachable", {
            detail: `${opts.name}: ${why}`,
          }),
        });
      const socket = opts.tls
        ? tlsConnect({
            host: opts.host,
            port: opts.port,
            ...opts.tls,
            servername: servername(opts.host),
          })
        : netConnect({ host: opts.host, port: opts.port });
      const timer = setTimeout(() => {
        socket.destroy();
        unreachable(`no connection within ${opts.connectTimeoutMs} ms`);
      }, opts.connectTimeoutMs);
      const onError = (err: Error) => {
        clearTimeout(timer);
        unreachable(`${(err as Error & { code?: string }).code ?? ""} ${err.message}`);
      };
      socket.once("error", onError);
      socket.once(opts.tls ? "secureConnect" : "connect", () => {
        clearTimeout(timer);
        socket.off("error", onError);
        socket.setNoDelay(true);
        const connection = new ElectrumConnection(socket, opts);
        connection.handshake().then((error) => {
          if (error) {
            connection.close();
            resolve({ ok: false, error });
          } else {
            resolve({ ok: true, connection });
          }
        });
      });
    });
  }

  get isOpen(): boolean {
    return !this.closed;
  }

  get inFlight(): number {
    return this.pending.size;
  }

  private async handshake(): Promise<GatewayError | null> {
    const range = this.opts.protocolRange ?? PROTOCOL_RANGE;
    const version = await this.request("server.version", [this.opts.clientName, range]);
    if (!version.ok) return version.error;
    if ("error" in version.answer) {
      return gatewayError("UPSTREAM_UNAVAILABLE", "the Electrum server refused us", {
        detail: `${this.opts.name}: server.version: ${version.answer.error.message}`,
      });
    }
    const result = version.answer.result;
    if (!Array.isArray(result) || typeof result[1] !== "string") {
      return gatewayError(
        "UPSTREAM_BAD_RESPONSE",
        "the Electrum server sent an answer we cannot read",
        {
          detail: `${this.opts.name}: server.version answered ${stringifyJson(result).slice(0, 200)}`,
        },
      );
    }
    this.serverVersion = {
      software: typeof result[0] === "string" ? result[0] : "",
      protocol: result[1],
    };
    const headers = await this.request("blockchain.headers.subscribe", []);
    if (headers.ok && "result" in headers.answer) this.noteTip(headers.answer.result);
    return null;
  }

  /**
   * Sends one request; resolves with its answer or failure, never later than timeoutMs.
   * `signal`: the pool's, when it stops waiting (its attempt timed out, or another server
   * answered first): the request is forgotten at once, so it no longer counts against
   * inFlightMax; a late answer is dropped like one after a timeout.
   */
  request(method: string, params: Json[], signal?: CancelSignal): Promise<ElectrumOutcome> {
    const refused = this.refusal(1);
    if (refused) return Promise.resolve(refused);
    const id = this.nextId++;
    const answer = this.track(id, method, Date.now(), signal);
    this.socket.write(`${stringifyJson({ jsonrpc: "2.0", method, params, id })}\n`);
    this.armPing();
    return answer;
  }

  /**
   * Sends the calls as one JSON-RPC batch: one line out, one line back (ElectrumX, Fulcrum and
   * electrs answer a batch whole). Each call still has its own outcome and timeout; the batch as
   * a whole is refused when the connection is closed or would exceed inFlightMax.
   */
  batch(calls: readonly RpcCall[], signal?: CancelSignal): Promise<ElectrumOutcome[]> {
    const refused = this.refusal(calls.length);
    if (refused) return Promise.resolve(calls.map(() => refused));
    const sentAt = Date.now();
    const ids = calls.map(() => this.nextId++);
    const answers = calls.map((c, i) => this.track(ids[i]!, c.method, sentAt, signal, ids));
    const body = calls.map((c, i) => ({
      jsonrpc: "2.0",
      method: c.method,
      params: c.params,
      id: ids[i]!,
    }));
    this.socket.write(`${stringifyJson(body)}\n`);
    this.armPing();
    return Promise.all(answers);
  }

  /** Why `count` more requests cannot go out now (closed, or too many in flight), or null. */
  private refusal(count: number): ElectrumOutcome | null {
    if (this.closed) {
      return {
        ok: false,
        retryable: true,
        error:
          this.closeError ??
          gatewayError("UPSTREAM_UNAVAILABLE", "the Electrum server is unreachable", {
            detail: `${this.opts.name}: connection closed`,
          }),
      };
    }
    if (this.pending.size + count > this.opts.inFlightMax) {
      return {
        ok: false,
        retryable: true,
        error: gatewayError("UPSTREAM_UNAVAILABLE", "the Electrum server is busy", {
          detail: `${this.opts.name}: ${this.pending.size} requests in flight`,
        }),
      };
    }
    return null;
  }

  /** The answer to request `id` once it comes, or its timeout; `batch`: the ids sent with it. */
  private track(
    id: number,
    method: string,
    sentAt: number,
    signal?: CancelSignal,
    batch?: number[],
  ): Promise<ElectrumOutcome> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        resolve({
          ok: false,
          retryable: false,
          error: gatewayError("UPSTREAM_TIMEOUT", "the Electrum server did not answer in time", {
            detail: `${this.opts.name}: ${method} took over ${this.opts.timeoutMs} ms`,
          }),
        });
        // Silence since the request went out: the peer is gone without a FIN. Drop it so the
        // next requests go to a fresh connection instead of waiting out their own timeouts.
        if (this.lastReceivedAt < sentAt) this.close();
      }, this.opts.timeoutMs);
      this.pending.set(id, { resolve, timer, sentAt, ...(batch ? { batch } : {}) });
      signal?.addEventListener(
        "abort",
        () => {
          if (!this.pending.delete(id)) return;
          clearTimeout(timer);
          resolve({
            ok: false,
            retryable: false,
            error: gatewayError("UPSTREAM_TIMEOUT", "the Electrum server did not answer in time", {
              detail: `${this.opts.name}: ${method} abandoned by the pool`,
            }),
          });
        },
        { once: true },
      );
    });
  }

  close(): void {
    this.socket.destroy();
    this.fail();
  }

  /** Keep-alive: a ping after pingIntervalMs without a request, so idle servers keep us. */
  private armPing(): void {
    clearTimeout(this.pingTimer);
    this.pingTimer = setTimeout(() => {
      void this.request("server.ping", []).then((out) => {
        if (!out.ok && !this.closed) this.close();
      });
    }, this.opts.pingIntervalMs);
    this.pingTimer.unref();
  }

  private receive(line: string): void {
    let message: Json;
    try {
      message = parseJson(line);
    } catch {
      this.fail(
        gatewayError("UPSTREAM_BAD_RESPONSE", "the Electrum server sent an answer we cannot read", {
          detail: `${this.opts.name}: not JSON: ${line.slice(0, 200)}`,
        }),
      );
      this.socket.destroy();
      return;
    }
    for (const item of Array.isArray(message) ? message : [message]) {
      if (!isJsonObject(item)) continue;
      if (typeof item.method === "string" && item.id === undefined) {
        if (!Array.isArray(item.params)) continue;
        if (item.method === "blockchain.headers.subscribe") this.noteTip(item.params[0]);
        else this.opts.onNotification?.(item.method, item.params);
        continue;
      }
      const id = jsonInteger(item.id);
      const entry = id === undefined ? undefined : this.pending.get(id);
      // An answer to a request that timed out (or a stray id): nobody is waiting for it.
      if (id === undefined || !entry) continue;
      this.pending.delete(id);
      clearTimeout(entry.timer);
      const outcome = this.toOutcome(item);
      entry.resolve(outcome.ok && message === item ? { ...outcome, bytes: line.length } : outcome);
    }
  }

  /**
   * An answer over lineBytesMax, skipped as it came (never held): the request it answers, found
   * by the id at either end, gets RESPONSE_TOO_LARGE — final, the server is well and would send
   * the same again — and the connection goes on. One whose request cannot be told ends the
   * connection, as any answer we cannot read does.
   */
  private receiveLong(line: LongLine): void {
    const id = idOfLongLine(line) ?? idOfLongBatch(line);
    const entry = id === undefined ? undefined : this.pending.get(id);
    if (id === undefined || !entry) {
      this.fail(
        gatewayError("UPSTREAM_BAD_RESPONSE", "the Electrum server sent an answer we cannot read", {
          detail: `${this.opts.name}: a line of ${line.bytes} bytes (over ${this.opts.lineBytesMax}) answering no request we know`,
        }),
      );
      return;
    }
    // A batch's answer is one line: every call of the batch went unanswered with it.
    for (const member of entry.batch ?? [id]) {
      const pending = this.pending.get(member);
      if (!pending) continue;
      this.pending.delete(member);
      clearTimeout(pending.timer);
      pending.resolve({
        ok: false,
        retryable: false,
        error: responseTooLarge(
          this.opts.lineBytesMax,
          { bytes: line.bytes },
          `${this.opts.name}: an answer of ${line.bytes} bytes, over lineBytesMax`,
        ),
      });
    }
  }

  private toOutcome(item: { [key: string]: Json }): ElectrumOutcome {
    const error = item.error;
    if (error !== undefined && error !== null) {
      const code = isJsonObject(error) ? jsonInteger(error.code) : undefined;
      if (isJsonObject(error) && code !== undefined && typeof error.message === "string") {
        return { ok: true, answer: { error: { code, message: error.message } } };
      }
      return {
        ok: false,
        retryable: false,
        error: gatewayError(
          "UPSTREAM_BAD_RESPONSE",
          "the Electrum server sent an answer we cannot read",
          {
            detail: `${this.opts.name}: malformed error ${stringifyJson(error).slice(0, 200)}`,
          },
        ),
      };
    }
    return { ok: true, answer: { result: item.result ?? null } };
  }

  private noteTip(value: Json | undefined): void {
    if (!isJsonObject(value)) return;
    const height = jsonInteger(value.height);
    if (height !== undefined && typeof value.hex === "string") {
      this.opts.onTip({ height, hex: value.hex });
    }
  }

  /** Settles every pending request with the failure, once. */
  private fail(error?: GatewayError): void {
    if (error) this.closeError ??= error;
    if (!this.closed) {
      this.closed = true;
      clearTimeout(this.pingTimer);
      this.socket.destroy();
      this.opts.onClose();
    }
    const failure =
      this.closeError ??
      gatewayError("UPSTREAM_UNAVAILABLE", "the Electrum server closed the connection", {
        detail: `${this.opts.name}: connection lost`,
      });
    for (const [id, entry] of this.pending) {
      this.pending.delete(id);
      clearTimeout(entry.timer);
      // Lookups are read-only: one cut off with its connection may be retried elsewhere.
      entry.resolve({ ok: false, retryable: true, error: failure });
    }
  }
}

/** SNI takes host names only. */
function servername(host: string): string | undefined {
  return /^[\d.]+$/.test(host) || host.includes(":") ? undefined : host;
}
