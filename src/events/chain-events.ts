import { EventEmitter } from "node:events";
import type { Logger } from "pino";
import type { Config, NetworkName } from "../config/schema.ts";
import type { Database, Leadership } from "../db/database.ts";
import type { BitcoinCorePool } from "../upstreams/bitcoin-core/pool.ts";
import type { ElectrumPool } from "../upstreams/electrum/pool.ts";
import type { VerifiedChains } from "../verify/chain/verified-chains.ts";
import type { EventBus } from "./bus.ts";
import { coreHeaders, electrumHeaders, verifiedHeaders } from "./headers-source.ts";
import { TipFollower } from "./tip-follower.ts";
import type { ChainEvent } from "./types.ts";

/** Event ids remembered to drop a repeat (a process hears its own NOTIFY back). */
const SEEN_MAX = 10_000;

/**
 * The gateway's chain events, detected once and heard everywhere. Every process competes for one
 * role on the database (`Database.lead`); the leader follows each network's best chain through
 * its node pool, or its Electrum servers where it has no node (TipFollower), every
 * `events.pollMs` and at once when an Electrum server's headers subscription tells of a new tip
 * (a block is announced within milliseconds of the upstream's notice, not at the next poll). It
 * publishes each event on the event bus (bus.ts: the database's NOTIFY, or Redis pub/sub with
 * REDIS_URL), which every process hears, itself included. Every process delivers what it hears to
 * its own subscribers, once per event id. A new leader starts by reading the tips afresh: it
 * announces what changes from then on.
 */
export class ChainEvents {
  private readonly local = new EventEmitter();
  /** "leading" and "following", as this process gains and loses the lead. */
  private readonly roles = new EventEmitter();
  private readonly seen = new Set<string>();
  private readonly observers = new Set<(event: ChainEvent) => void>();
  private readonly followers: TipFollower[];
  private readonly electrum: Map<NetworkName, ElectrumPool>;
  private readonly stopTips: (() => void)[] = [];
  private leadership: Leadership | null = null;
  private timer: NodeJS.Timeout | null = null;
  private polling: Promise<void> | null = null;
  private closed = false;

  constructor(
    private readonly db: Database,
    private readonly bus: EventBus,
    nodes: Map<NetworkName, BitcoinCorePool>,
    electrum: Map<NetworkName, ElectrumPool>,
    private readonly config: Config["events"],
    private readonly log: Logger,
    private readonly counted: (event: ChainEvent) => void = () => {},
    /** Each network's verified chain: where there is one, it is what the chain is read from. */
    private readonly verified?: VerifiedChains & {
      onTip(network: NetworkName, fn: () => void): () => void;
    },
  ) {
    this.local.setMaxListeners(0);
    // One "closed" listener per open subscription.
    this.roles.setMaxListeners(0);
    this.electrum = electrum;
    const networks = new Set([...nodes.keys(), ...electrum.keys()]);
    this.followers = [...networks].map((network) => {
      const node = nodes.get(network);
      const checked = verified?.get(network);
      const source = checked
        ? verifiedHeaders(checked)
        : node
          ? coreHeaders(node)
          : electrumHeaders(electrum.get(network)!);
      return new TipFollower(network, source, config.reorgDepthMax);
    });
  }

  start(): void {
    this.bus.subscribe((payload) => this.deliver(payload));
    if (this.config.pollMs === 0 || this.followers.length === 0) return;
    this.leadership = this.db.lead(
      "chain-follower",
      (leader) => {
        this.log.info(
          { leader },
          leader ? "following the chains" : "no longer following the chains",
        );
        if (leader) {
          this.schedule(0);
          this.hearTips();
        } else {
          if (this.timer) clearTimeout(this.timer);
          this.deafToTips();
        }
        this.roles.emit(leader ? "leading" : "following");
      },
      this.config.leaderRetryMs,
    );
  }

  /**
   * Resolves once this process hears what is published (the bus is subscribed), or after
   * `boundMs`: startup waits for it so that a gateway that answers hears every block from then
   * on, but an unreachable Redis must not hold startup (NOTIFY carries events meanwhile).
   */
  async hearing(boundMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, boundMs);
    });
    await Promise.race([this.bus.ready().catch(() => {}), bound]);
    clearTimeout(timer);
  }

  /** Whether this process leads (follows the chains), once its first try at the lead is over. */
  async leading(): Promise<boolean> {
    if (!this.leadership) return false;
    await this.leadership.firstTry;
    return this.leadership.leading();
  }

  /** Resolves when this process leads: at once if it does, else when it takes the lead over. */
  async untilLeading(): Promise<void> {
    if (await this.leading()) return;
    await new Promise<void>((resolve) => this.roles.once("leading", () => resolve()));
  }

  /** Calls `fn` with each event of `network` from now on; returns the way to stop. */
  subscribe(network: NetworkName, fn: (event: ChainEvent) => void): () => void {
    this.local.on(network, fn);
    return () => this.local.off(network, fn);
  }

  /**
   * Calls `fn` with every network's events, as the gateway's own consumer (webhook dispatch):
   * not a subscriber (not counted in `subscribers`, not ended by `close`'s listeners).
   */
  observe(fn: (event: ChainEvent) => void): () => void {
    this.observers.add(fn);
    return () => this.observers.delete(fn);
  }

  /** Subscribers now listening, over all networks (for metrics and tests). */
  subscribers(): number {
    return this.local.eventNames().reduce((n, name) => n + this.local.listenerCount(name), 0);
  }

  /**
   * One look at every chain now, or at `network`'s (the leader's poll; an Electrum server's new
   * tip; what tests and devnet's `mine` command use to announce a block at once rather than at the
   * next poll). Resolves once the events are published. A process that does not lead does nothing.
   */
  async pollNow(network?: NetworkName): Promise<void> {
    if (!this.leadership?.leading()) return;
    // A verified chain moves at its own polls: asked now, it looks first (its move then calls
    // `poll` itself, which finds nothing new).
    await Promise.all(
      this.followers
        .filter((f) => network === undefined || f.network === network)
        .map((f) => this.verified?.get(f.network)?.look?.()),
    );
    await this.poll(network);
  }

  /** A poll of what the chains' sources say now (the timer's, and a new tip's). */
  private async poll(network?: NetworkName): Promise<void> {
    if (!this.leadership?.leading()) return;
    // Polls never overlap: a second caller waits for the one under way, then looks again.
    while (this.polling) await this.polling;
    this.polling = this.pollOnce(network).finally(() => {
      this.polling = null;
    });
    await this.polling;
  }

  /** Calls `fn` when the gateway stops announcing (its shutdown): what ends subscriptions. */
  onClose(fn: () => void): () => void {
    this.roles.once("closed", fn);
    return () => this.roles.off("closed", fn);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.roles.emit("closed");
    if (this.timer) clearTimeout(this.timer);
    this.deafToTips();
    // A look under way is not waited for: its node may be slow (a drain must not wait on it);
    // what it finds is not published (pollOnce checks `closed`).
    await this.leadership?.stop();
    await this.bus.close();
    this.local.removeAllListeners();
  }

  /** One look at `network`'s chain, or at every chain. */
  private async pollOnce(network?: NetworkName): Promise<void> {
    for (const follower of this.followers) {
      if (network !== undefined && follower.network !== network) continue;
      let events: ChainEvent[];
      try {
        events = await follower.poll();
      } catch (err) {
        // After close, a look under way fails because the shutdown closes the node's pool.
        if (this.closed) return;
        this.log.warn({ err, network: follower.network }, "following the chain: the node failed");
        continue;
      }
      for (const event of events) {
        if (this.closed) return;
        await this.bus.publish(JSON.stringify(event));
      }
    }
  }

  /** The leader looks at once when an Electrum server announces a new tip, or the verified chain moves. */
  private hearTips(): void {
    for (const follower of this.followers) {
      const network = follower.network;
      const stop = this.verified?.get(network)
        ? this.verified.onTip(network, () => {
            this.poll(network).catch((err: unknown) =>
              this.log.warn({ err }, "announcing the tip"),
            );
          })
        : null;
      if (stop) this.stopTips.push(stop);
    }
    for (const [network, pool] of this.electrum) {
      this.stopTips.push(
        pool.onTip(() => {
          this.poll(network).catch((err: unknown) => this.log.warn({ err }, "announcing the tip"));
        }),
      );
    }
  }

  private deafToTips(): void {
    for (const stop of this.stopTips.splice(0)) stop();
  }

  private schedule(delayMs: number): void {
    if (this.closed) return;
    this.timer = setTimeout(() => {
      void this.poll().finally(() => {
        if (this.leadership?.leading()) this.schedule(this.config.pollMs);
      });
    }, delayMs);
    this.timer.unref();
  }

  private deliver(payload: string): void {
    let event: ChainEvent;
    try {
      event = JSON.parse(payload) as ChainEvent;
    } catch {
      return;
    }
    if (this.seen.has(event.id)) return;
    this.seen.add(event.id);
    if (this.seen.size > SEEN_MAX) this.seen.delete(this.seen.values().next().value!);
    this.counted(event);
    for (const fn of this.observers) fn(event);
    this.local.emit(event.network, event);
  }
}
