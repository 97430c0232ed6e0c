import { EventEmitter } from "node:events";
import { readFileSync } from "node:fs";
import type { ElectrumUpstreamConfig } from "../../config/schema.ts";
import { gatewayError } from "../../protocol/errors/codes.ts";
import type { Json } from "../../protocol/json/json.ts";
import type { RpcCall } from "../../protocol/json/types.ts";
import { within } from "../../util/cached-check.ts";
import type { CancelSignal } from "../../util/cancel.ts";
import {
  type ConnectionOptions,
  ElectrumConnection,
  type ElectrumOutcome,
  type ElectrumServerVersion,
  type ElectrumTip,
} from "./connection.ts";

const BACKOFF_FIRST_MS = 250;

interface Slot {
  connection: ElectrumConnection | null;
  connecting: Promise<void> | null;
  failures: number;
  retry: NodeJS.Timeout | undefined;
}

/**
 * One Electrum server: a small set of persistent connections, each reconnected after it drops with
 * exponential backoff (250 ms doubling to reconnectMaxMs). A request goes to the open connection
 * with the fewest requests in flight; with none open it fails at once (retryable), so a pool can
 * try another server instead of waiting. Emits "connected" and "disconnected".
 */
export class ElectrumUpstream extends EventEmitter {
  readonly name: string;
  private readonly slots: Slot[];
  private readonly options: Omit<ConnectionOptions, "onClose">;
  private closed = false;
  private latestTip: (ElectrumTip & { at: number }) | null = null;

  private readonly reconnectMaxMs: number;

  constructor(config: ElectrumUpstreamConfig) {
    super();
    this.reconnectMaxMs = config.reconnectMaxMs;
    this.name = electrumServerName(config);
    this.options = {
      ...connectionOptions(config),
      onTip: (tip) => {
        if (!this.latestTip || tip.height >= this.latestTip.height) {
          this.latestTip = { ...tip, at: Date.now() };
          this.emit("tip", tip);
        }
      },
    };
    this.slots = Array.from({ length: config.connections }, () => ({
      connection: null,
      connecting: null,
      failures: 0,
      retry: undefined,
    }));
  }

  /** Opens every connection (in the background; failures go into backoff). */
  start(): void {
    for (const slot of this.slots) void this.connect(slot);
  }

  get connected(): boolean {
    return this.slots.some((s) => s.connection?.isOpen);
  }

  /**
   * The tip from the headers subscription, while one is live: with no open connection nobody
   * would tell us about a new block, so the tip is not vouched for.
   */
  tip(): ElectrumTip | null {
    return this.connected && this.latestTip
      ? { height: this.latestTip.height, hex: this.latestTip.hex }
      : null;
  }

  /** What the server said to server.version on an open connection, or null with none open. */
  serverVersion(): ElectrumServerVersion | null {
    for (const slot of this.slots) {
      if (slot.connection?.isOpen && slot.connection.serverVersion)
        return slot.connection.serverVersion;
    }
    return null;
  }

  /** `signal`: the pool's, when it stops waiting (see ElectrumConnection.request). */
  async request(method: string, params: Json[], signal?: CancelSignal): Promise<ElectrumOutcome> {
    const connection = await this.ready(signal);
    return "ok" in connection ? connection : connection.request(method, params, signal);
  }

  /** Several calls as one JSON-RPC batch on one connection (see ElectrumConnection.batch). */
  async batch(calls: readonly RpcCall[], signal?: CancelSignal): Promise<ElectrumOutcome[]> {
    const connection = await this.ready(signal);
    return "ok" in connection ? calls.map(() => connection) : connection.batch(calls, signal);
  }

  /** An open connection to send on (waiting for one being opened), or why there is none. */
  private async ready(
    signal?: CancelSignal,
  ): Promise<ElectrumConnection | Extract<ElectrumOutcome, { ok: false }>> {
    let connection = this.pick();
    if (!connection) {
      const connecting = this.slots.flatMap((s) => (s.connecting ? [s.connecting] : []));
      if (connecting.length > 0) {
        await Promise.race(connecting);
        connection = this.pick();
      }
    }
    if (!connection) {
      return {
        ok: false,
        retryable: true,
        error: gatewayError("UPSTREAM_UNAVAILABLE", "the Electrum server is unreachable", {
          detail: `${this.name}: no open connection (reconnecting)`,
        }),
      };
    }
    if (signal?.aborted) {
      return {
        ok: false,
        retryable: false,
        error: gatewayError("UPSTREAM_TIMEOUT", "the Electrum server did not answer in time", {
          detail: `${this.name}: abandoned by the pool before it was sent`,
        }),
      };
    }
    return connection;
  }

  /**
   * For /readyz: `server.ping` on an open connection (or one being opened). With none, the
   * request fails at once: the server is down without being asked.
   */
  async probe(timeoutMs: number): Promise<boolean> {
    const out = await within(this.request("server.ping", []), timeoutMs, null);
    if (out === null || !out.ok) return false;
    return !("error" in out.answer);
  }

  private pick(): ElectrumConnection | null {
    let best: ElectrumConnection | null = null;
    for (const slot of this.slots) {
      const c = slot.connection;
      if (c?.isOpen && (!best || c.inFlight < best.inFlight)) best = c;
    }
    return best;
  }

  private connect(slot: Slot): Promise<void> {
    if (this.closed || slot.connecting || slot.connection?.isOpen) {
      return slot.connecting ?? Promise.resolve();
    }
    clearTimeout(slot.retry);
    slot.connecting = ElectrumConnection.open({
      ...this.options,
      onClose: () => this.onClose(slot),
    }).then((out) => {
      slot.connecting = null;
      if (this.closed) {
        if (out.ok) out.connection.close();
        return;
      }
      if (out.ok) {
        slot.connection = out.connection;
        slot.failures = 0;
        this.emit("connected");
      } else {
        slot.failures += 1;
        this.emit("connect-failed", out.error);
        this.schedule(slot);
      }
    });
    return slot.connecting;
  }

  private onClose(slot: Slot): void {
    if (!slot.connection || slot.connection.isOpen) return;
    slot.connection = null;
    this.emit("disconnected");
    // A connection that had been working is retried at once; failures then back off.
    if (!this.closed) void this.connect(slot);
  }

  private schedule(slot: Slot): void {
    const delay = reconnectDelayMs(slot.failures, this.reconnectMaxMs);
    slot.retry = setTimeout(() => void this.connect(slot), delay);
    slot.retry.unref();
  }

  /** Immediate either way: requests in flight fail at once when their connection goes. */
  close(): void {
    this.closed = true;
    for (const slot of this.slots) {
      clearTimeout(slot.retry);
      slot.connection?.close();
      slot.connection = null;
    }
  }
}

/** `host:port`, as logs and audit records name the server. */
export function electrumServerName(config: ElectrumUpstreamConfig): string {
  const url = new URL(config.url);
  return `${url.hostname}:${url.port}`;
}

/** A connection's settings from the server's config (what every connection to it shares). */
export function connectionOptions(
  config: ElectrumUpstreamConfig,
): Omit<ConnectionOptions, "onClose" | "onTip"> {
  const url = new URL(config.url);
  const secure = url.protocol === "ssl:" || url.protocol === "tls:";
  return {
    name: electrumServerName(config),
    host: url.hostname.replace(/^\[|\]$/g, ""),
    port: Number(url.port),
    tls: secure
      ? {
          rejectUnauthorized: config.tlsVerify,
          ...(config.caFile ? { ca: readFileSync(config.caFile) } : {}),
        }
      : null,
    timeoutMs: config.timeoutMs,
    connectTimeoutMs: config.connectTimeoutMs,
    lineBytesMax: config.lineBytesMax,
    inFlightMax: config.inFlightMax,
    pingIntervalMs: config.pingIntervalMs,
    clientName: "blockgate",
  };
}

/** After `failures` failed attempts in a row: 250 ms doubling up to `maxMs`, jittered. */
export function reconnectDelayMs(failures: number, maxMs: number): number {
  const base = Math.min(BACKOFF_FIRST_MS * 2 ** (failures - 1), maxMs);
  // Jitter, so that gateways restarted together do not reconnect in step.
  return base / 2 + Math.random() * (base / 2);
}
