import type { ElectrumUpstreamConfig } from "../../config/schema.ts";
import { type Json, stringifyJson } from "../../protocol/json/json.ts";
import { connectionOptions, reconnectDelayMs } from "./client.ts";
import { ElectrumConnection } from "./connection.ts";

const SUBSCRIBE = "blockchain.scripthash.subscribe";
const UNSUBSCRIBE = "blockchain.scripthash.unsubscribe";

/**
 * blockchain.scripthash.unsubscribe came with protocol 1.4.2 (ElectrumX offers it from there):
 * this connection asks for it. It sends nothing but subscriptions, whose shapes 1.4.2 keeps.
 */
const FEED_PROTOCOL_RANGE = ["1.4", "1.4.2"];

/** A script hash's status as the server told it, and which server told it (for the audit). */
export type StatusListener = (status: string | null, upstream: string) => void;

export interface ScripthashFeedOptions {
  /** Script hashes held upstream at most (electrum.upstreamSubscriptionsMax). */
  subscriptionsMax: number;
  /** What operators should hear of: a server refusing a subscription, a lost connection. */
  warn?: ((what: string, detail: Record<string, unknown>) => void) | undefined;
}

/**
 * The process's subscriptions to one network's script hashes, held on a connection of their own
 * to one of the network's Electrum servers — not on the pool's, which every client shares and
 * which a request may leave at any time — so the server notifies each status change as it
 * happens, mempool included, as ElectrumX notifies its wallets. Reference-counted: the first
 * listener of a script hash subscribes it upstream, the last one gone unsubscribes it. Opened on
 * the first subscription; when the connection drops, the next server is tried (backoff between
 * failed attempts) and every script hash is subscribed again, its answer told to its listeners
 * (who compare it with what they last sent). At most `subscriptionsMax` script hashes: past it,
 * and while the connection is down, `covers` says no and the caller reads statuses itself.
 */
export class ScripthashFeed {
  /** Each script hash held, and who is told its statuses. */
  private readonly held = new Map<string, Set<StatusListener>>();
  /** Held, but the server refused to subscribe them (its own limit): not covered. */
  private readonly refused = new Set<string>();
  /** Held, their subscription not yet answered on this connection. */
  private readonly queue: string[] = [];
  private inFlight = 0;
  /** Subscriptions sent at once: half the server's in-flight limit (pings and unsubscribes fit). */
  private window = 1;
  private connection: ElectrumConnection | null = null;
  private upstream = "";
  private connecting = false;
  private failures = 0;
  /** The server tried next (the configs' order, moving on when one fails or drops). */
  private next = 0;
  private retry: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly configs: readonly ElectrumUpstreamConfig[],
    private readonly opts: ScripthashFeedOptions,
  ) {}

  /**
   * Tells `listener` this script hash's statuses from now on; returns what stops it, or null when
   * the process holds `subscriptionsMax` script hashes already (the caller reads it itself).
   */
  hold(scripthash: string, listener: StatusListener): (() => void) | null {
    let listeners = this.held.get(scripthash);
    if (!listeners) {
      if (this.held.size >= this.opts.subscriptionsMax) return null;
      listeners = new Set();
      this.held.set(scripthash, listeners);
      this.queue.push(scripthash);
      this.open();
      this.pump();
    }
    listeners.add(listener);
    return () => this.release(scripthash, listener);
  }

  /**
   * Whether the server tells us of this script hash's changes now: held (or being subscribed) on
   * an open connection, and not refused. When not, its holders read it at each chain event.
   */
  covers(scripthash: string): boolean {
    return (
      this.connection?.isOpen === true && this.held.has(scripthash) && !this.refused.has(scripthash)
    );
  }

  /** Script hashes held upstream now (for tests and metrics). */
  get size(): number {
    return this.held.size;
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.retry);
    this.connection?.close();
    this.connection = null;
  }

  private release(scripthash: string, listener: StatusListener): void {
    const listeners = this.held.get(scripthash);
    if (!listeners?.delete(listener) || listeners.size > 0) return;
    this.held.delete(scripthash);
    this.refused.delete(scripthash);
    // A server without 1.4.2's unsubscribe keeps notifying it: those notifications are dropped.
    if (this.connection?.isOpen) void this.connection.request(UNSUBSCRIBE, [scripthash]);
  }

  private open(): void {
    if (this.closed || this.connecting || this.connection?.isOpen) return;
    if (this.retry) return;
    const config = this.configs[this.next % this.configs.length]!;
    const options = connectionOptions(config);
    this.connecting = true;
    void ElectrumConnection.open({
      ...options,
      protocolRange: FEED_PROTOCOL_RANGE,
      onTip: () => {},
      onNotification: (method, params) => this.notified(method, params),
      onClose: () => this.dropped(),
    }).then((out) => {
      this.connecting = false;
      if (this.closed) {
        if (out.ok) out.connection.close();
        return;
      }
      if (!out.ok) {
        this.failures += 1;
        this.next += 1;
        this.retry = setTimeout(
          () => {
            this.retry = undefined;
            this.open();
          },
          reconnectDelayMs(this.failures, config.reconnectMaxMs),
        );
        this.retry.unref();
        return;
      }
      this.failures = 0;
      this.connection = out.connection;
      this.upstream = options.name;
      this.window = Math.max(1, Math.floor(config.inFlightMax / 2));
      // Everything held is subscribed again; each answer is a status its listeners compare.
      this.refused.clear();
      this.queue.splice(0, this.queue.length, ...this.held.keys());
      this.inFlight = 0;
      this.pump();
    });
  }

  /** The connection dropped: what it held is read per chain event until another is open. */
  private dropped(): void {
    if (this.closed || !this.connection) return;
    this.connection = null;
    this.opts.warn?.("Electrum subscription connection lost", { upstream: this.upstream });
    this.next += 1;
    if (this.held.size > 0) this.open();
  }

  /**
   * Sends the queued subscriptions, at most half the connection's in-flight limit at once (a
   * reconnection re-subscribes thousands), each answer told to the script hash's listeners.
   */
  private pump(): void {
    const connection = this.connection;
    if (!connection?.isOpen) return;
    while (this.inFlight < this.window && this.queue.length > 0) {
      const scripthash = this.queue.shift()!;
      if (!this.held.has(scripthash)) continue;
      this.inFlight += 1;
      void connection.request(SUBSCRIBE, [scripthash]).then((out) => {
        if (connection !== this.connection) return;
        this.inFlight -= 1;
        if (out.ok && "result" in out.answer) this.tell(scripthash, out.answer.result);
        else {
          // Refused (the server's own limit) or unanswered: read per chain event instead, until
          // the next connection subscribes it again.
          this.refused.add(scripthash);
          this.opts.warn?.("an Electrum script hash subscription failed", {
            upstream: this.upstream,
            error: out.ok ? stringifyJson(out.answer) : out.error.message,
          });
        }
        this.pump();
      });
    }
  }

  private notified(method: string, params: Json[]): void {
    const [scripthash, status] = params;
    if (method !== SUBSCRIBE || typeof scripthash !== "string") return;
    this.tell(scripthash, status);
  }

  private tell(scripthash: string, status: Json | undefined): void {
    if (status !== null && typeof status !== "string") return;
    for (const listener of this.held.get(scripthash) ?? []) listener(status, this.upstream);
  }
}
