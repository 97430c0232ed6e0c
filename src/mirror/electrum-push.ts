import { rpcErrorObject } from "../errors/render.ts";
import type { ChainEvent } from "../events/types.ts";
import { type Json, jsonNumber, stringifyJson } from "../jsonrpc/json.ts";
import type { ElectrumSubscriptions } from "../metering/context.ts";
import { meter } from "../metering/pipeline.ts";
import type { SocketSession } from "../metering/socket-session.ts";
import { eventPrice } from "../pricing/prices.ts";
import type { ElectrumPool } from "../upstreams/electrum/pool.ts";
import { readScripthashStatus } from "../upstreams/electrum/status.ts";
import type { MessageChannel } from "./electrum-channel.ts";

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
 * to (the route tells it through the call's context):
 * - **headers** (`blockchain.headers.subscribe` answered): when the chain's tip moves, the new tip
 *   — `{"jsonrpc":"2.0","method":"blockchain.headers.subscribe","params":[{"hex","height"}]}` —
 *   the header read from the network's Electrum servers. The events of one look at the chain (a
 *   reorganisation is several) make one notification: the tip's.
 * - **script hashes** (`blockchain.scripthash.subscribe` answered, until unsubscribed): at each
 *   look at the chain every subscribed script's status is read again from the Electrum servers
 *   (requests pipelined on the pool's connections) and those that changed are sent,
 *   `{"method":"blockchain.scripthash.subscribe","params":[scripthash, status]}`. A change in the
 *   mempool alone is seen at the next chain event, not before: the gateway holds no subscription
 *   on its servers (src/upstreams/electrum/status.ts says why).
 * Each notification is charged `pricing.events[<method>]` as it is sent, through the pipeline (its
 * own audit record); when the balance no longer covers one, the session is told with a JSON-RPC
 * error and no more notifications are sent. A session holds at most `electrum.subscriptionsMax`
 * script hashes (the route refuses the next).
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

  constructor(
    private readonly channel: MessageChannel,
    private readonly session: SocketSession,
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
      this.scripthashes.size < this.session.ctx.app.config.electrum.subscriptionsMax
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
  }

  unsubscribeScripthash(scripthash: string): boolean {
    return this.scripthashes.delete(scripthash);
  }

  close(): void {
    this.stop?.();
    this.stop = null;
  }

  /** Follows the chain from the first subscription on (once). */
  private listen(): void {
    if (this.stop || this.ended) return;
    const { ctx } = this.session;
    this.stop = ctx.app.events.subscribe(ctx.network, (e) => {
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
    const owner = await this.session.stillValid();
    if (!owner) {
      this.close();
      this.channel.close("revoked");
      return;
    }
    const { ctx } = this.session;
    const pool = ctx.app.electrum.get(ctx.network);
    if (!pool) return;
    const notices = [...(await this.headerNotice(pool)), ...(await this.scripthashNotices(pool))];
    for (const notice of notices) {
      this.sent += 1;
      const cost = await meter(
        { ...ctx, owner, requestId: `${ctx.requestId}.push${this.sent}`, startedAt: Date.now() },
        {
          calls: [
            {
              kind: "priced",
              method: notice.method,
              price: eventPrice(ctx.app.config, notice.method, ctx.network),
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

  /** The subscribed script hashes whose status is no longer the one the client was told. */
  private async scripthashNotices(pool: ElectrumPool): Promise<Notice[]> {
    const held = [...this.scripthashes];
    const read = await Promise.all(held.map(([hash]) => readScripthashStatus(pool, hash)));
    // Told at the next look, when the servers answer again; one line for them all.
    const unread = read.filter((out) => !out.ok || !("result" in out.answer)).length;
    if (unread > 0) this.warn("script hash statuses for notifications unread", unread);
    return held.flatMap(([hash, told], i): Notice[] => {
      const out = read[i]!;
      if (!out.ok || !("result" in out.answer)) return [];
      const status = out.answer.result as string | null;
      if (status === told) return [];
      return [
        {
          method: SCRIPTHASH,
          params: [hash, status],
          upstream: out.upstream,
          sent: () => this.scripthashes.set(hash, status),
        },
      ];
    });
  }

  private warn(what: string, at: number): void {
    const { ctx } = this.session;
    ctx.app.log.warn({ network: ctx.network, at }, what);
  }

  private send(message: Record<string, unknown>): void {
    if (this.channel.isOpen()) this.channel.send(stringifyJson(message));
  }
}
