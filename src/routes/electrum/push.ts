import type { TokenOwner } from "../../access/tokens.ts";
import type { ElectrumSubscriptions } from "../../billing/metering/context.ts";
import { meter } from "../../billing/metering/pipeline.ts";
import type { SocketSession } from "../../billing/metering/socket-session.ts";
import { eventPrice } from "../../billing/pricing/prices.ts";
import type { ChainEvent } from "../../events/types.ts";
import { rpcErrorObject } from "../../protocol/errors/render.ts";
import { type Json, jsonNumber, stringifyJson } from "../../protocol/json/json.ts";
import type { ElectrumPool } from "../../upstreams/electrum/pool.ts";
import { readScripthashStatus } from "../../upstreams/electrum/status.ts";
import type { MessageChannel } from "./channel.ts";
import type { ElectrumServices } from "./services.ts";

const HEADERS = "blockchain.headers.subscribe";
const SCRIPTHASH = "blockchain.scripthash.subscribe";

/** A notification to send, as ElectrumX sends it, and who answered what it carries. */
interface Notice {
  method: typeof HEADERS | typeof SCRIPTHASH;
  params: Json[];
  upstream: string;
  /** Done once it is sent (a script hash's new status remembered). */
  sent?: () => unknown;
}

/**
 * Electrum's notifications on a socket session (WebSocket or TLS), for what its calls subscribed
 * to: the new tip after `blockchain.headers.subscribe` (one per look at the chain, a
 * reorganisation included), and a script hash's new status after `blockchain.scripthash.subscribe`
 * whenever it differs from the one last told. Statuses come from the process's shared upstream
 * subscriptions (the pool's ScripthashFeed); a script hash the feed does not cover is read again
 * at each chain event instead. Each notification is charged `pricing.events[<method>]` through
 * the pipeline as it is sent; when the balance no longer covers one, the session is told with a
 * JSON-RPC error and no more are sent. At most `electrum.subscriptionsMax` script hashes a session.
 */
export class ElectrumPush implements ElectrumSubscriptions {
  private headers = false;
  /** Each subscribed script hash and the status the client was last told. */
  private readonly scripthashes = new Map<string, string | null>();
  private stop: (() => void) | null = null;
  /** Set when a notification could not be paid: nothing is pushed again. */
  private ended = false;
  /** The tip to announce, when the chain gained blocks since the last look. */
  private tip: ChainEvent | null = null;
  private scheduled = false;
  private sent = 0;
  /** What stops the feed telling this session each script hash's statuses (held upstream). */
  private readonly feeds = new Map<string, () => void>();
  /**
   * Set by close: a call still running when the session closed must not take a subscription
   * (upstream, or to the chain's events) that nothing would ever release.
   */
  private closed = false;

  constructor(
    private readonly channel: MessageChannel,
    private readonly session: SocketSession<ElectrumServices>,
    /** The session's queue: a look takes its turn between two messages. */
    private readonly serial: (work: () => Promise<void>) => void,
  ) {}

  subscribeHeaders(): void {
    this.headers = true;
    this.listen();
  }

  canSubscribe(scripthash: string): boolean {
    return (
      this.scripthashes.has(scripthash) ||
      this.scripthashes.size < this.session.ctx.services.config.electrum.subscriptionsMax
    );
  }

  claimScripthash(scripthash: string): "held" | "new" | "full" {
    if (this.scripthashes.has(scripthash)) return "held";
    if (!this.canSubscribe(scripthash)) return "full";
    // Until its status is read: a look never runs meanwhile (one queue per session).
    this.scripthashes.set(scripthash, null);
    return "new";
  }

  subscribeScripthash(scripthash: string, status: string | null): void {
    this.scripthashes.set(scripthash, status);
    this.listen();
    if (this.feeds.has(scripthash) || this.closed) return;
    const { ctx } = this.session;
    const release = ctx.services.electrum
      .get(ctx.network)
      ?.scripthashes.hold(scripthash, (now, upstream) => this.told(scripthash, now, upstream));
    if (release) this.feeds.set(scripthash, release);
  }

  unsubscribeScripthash(scripthash: string): boolean {
    this.feeds.get(scripthash)?.();
    this.feeds.delete(scripthash);
    return this.scripthashes.delete(scripthash);
  }

  close(): void {
    this.closed = true;
    this.stop?.();
    this.stop = null;
    for (const release of this.feeds.values()) release();
    this.feeds.clear();
  }

  /** The server told the feed a script hash's status: pushed in turn if the client was told another. */
  private told(scripthash: string, status: string | null, upstream: string): void {
    this.serial(async () => {
      if (this.ended || !this.channel.isOpen()) return;
      const told = this.scripthashes.get(scripthash);
      if (told === undefined || told === status) return;
      const owner = await this.owner();
      if (owner) await this.deliver(owner, [this.scripthashNotice(scripthash, status, upstream)]);
    });
  }

  /** Follows the chain from the first subscription on (once). */
  private listen(): void {
    if (this.stop || this.closed) return;
    const { ctx } = this.session;
    this.stop = ctx.services.events.subscribe(ctx.network, (e) => {
      if (e.kind === "connected") this.tip = e;
      if (this.scheduled) return;
      this.scheduled = true;
      // The events of one look arrive together: they make one look here.
      setImmediate(() => {
        this.scheduled = false;
        this.serial(() => this.look());
      });
    });
  }

  private async look(): Promise<void> {
    if (!this.stop || !this.channel.isOpen()) return;
    // Everything unsubscribed: nothing to read or check.
    if (!this.headers && this.scripthashes.size === 0) return;
    const owner = await this.owner();
    if (!owner) return;
    const { ctx } = this.session;
    const pool = ctx.services.electrum.get(ctx.network);
    if (!pool) return;
    await this.deliver(owner, [
      ...(await this.headerNotice(pool)),
      ...(await this.scripthashNotices(pool)),
    ]);
  }

  /** The token's owner, still valid; otherwise the session is closed and null. */
  private async owner(): Promise<TokenOwner | null> {
    const owner = await this.session.stillValid();
    if (!owner) {
      this.close();
      this.channel.close("revoked");
    }
    return owner;
  }

  /** Sends each notice, charged as it goes; the first one the balance cannot pay ends them all. */
  private async deliver(owner: TokenOwner, notices: Notice[]): Promise<void> {
    const { ctx } = this.session;
    for (const notice of notices) {
      if (this.ended) return;
      this.sent += 1;
      const cost = await meter(
        { ...ctx, owner, requestId: `${ctx.requestId}.push${this.sent}`, startedAt: Date.now() },
        {
          calls: [
            {
              kind: "priced",
              method: notice.method,
              price: eventPrice(ctx.services.config, notice.method, ctx.network),
            },
          ],
          execute: async () => ({
            value: null,
            outcomes: [
              { kind: "answered", outcome: "ok", httpStatus: 200, upstream: notice.upstream },
            ],
          }),
        },
      );
      if (!cost.ok) {
        this.ended = true;
        this.close();
        const error = rpcErrorObject(cost.error) as { code: number; message: string };
        this.send({
          jsonrpc: "2.0",
          id: null,
          error: { ...error, message: `${error.message}: notifications stop` },
        });
        return;
      }
      notice.sent?.();
      this.send({ jsonrpc: "2.0", method: notice.method, params: notice.params });
    }
  }

  /** The new tip's header, when headers are subscribed and the chain gained blocks. */
  private async headerNotice(pool: ElectrumPool): Promise<Notice[]> {
    const tip = this.tip;
    this.tip = null;
    if (!this.headers || !tip) return [];
    const header = await pool.request("blockchain.block.header", [jsonNumber(tip.height)]);
    if (!header.ok || !("result" in header.answer) || typeof header.answer.result !== "string") {
      this.warn("header for a notification", tip.height);
      return [];
    }
    const params = [{ hex: header.answer.result, height: jsonNumber(tip.height) }];
    return [{ method: HEADERS, params, upstream: header.upstream }];
  }

  /**
   * The subscribed script hashes the feed does not cover whose status is no longer the one the
   * client was told (covered ones are notified by the server).
   */
  private async scripthashNotices(pool: ElectrumPool): Promise<Notice[]> {
    const held = [...this.scripthashes].filter(([hash]) => !pool.scripthashes.covers(hash));
    const read = await Promise.all(held.map(([hash]) => readScripthashStatus(pool, hash)));
    // Told at the next look, when the servers answer again; one line for them all.
    const unread = read.filter((out) => !out.ok || !("result" in out.answer)).length;
    if (unread > 0) this.warn("script hash statuses for notifications unread", unread);
    return held.flatMap(([hash, told], i): Notice[] => {
      const out = read[i]!;
      if (!out.ok || !("result" in out.answer)) return [];
      const status = out.answer.result as string | null;
      return status === told ? [] : [this.scripthashNotice(hash, status, out.upstream)];
    });
  }

  /** A script hash's new status, remembered once sent (if still subscribed by then). */
  private scripthashNotice(hash: string, status: string | null, upstream: string): Notice {
    return {
      method: SCRIPTHASH,
      params: [hash, status],
      upstream,
      sent: () => {
        if (this.scripthashes.has(hash)) this.scripthashes.set(hash, status);
      },
    };
  }

  private warn(what: string, at: number): void {
    const { ctx } = this.session;
    ctx.services.log.warn({ network: ctx.network, at }, what);
  }

  private send(message: Record<string, unknown>): void {
    if (this.channel.isOpen()) this.channel.send(stringifyJson(message));
  }
}
