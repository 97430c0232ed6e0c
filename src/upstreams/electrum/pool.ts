import type { ElectrumUpstreamConfig } from "../../config/schema.ts";
import type { GatewayError } from "../../protocol/errors/codes.ts";
import { type Json, stringifyJson } from "../../protocol/json/json.ts";
import type { RpcAnswer, RpcCall } from "../../protocol/json/types.ts";
import { LruMap } from "../../util/lru.ts";
import type { ChainView, Membership } from "../chain-view.ts";
import {
  type FailoverPolicy,
  FailoverPool,
  type HealthOptions,
  type PoolFailure,
  type PoolHealth,
  type PoolObserver,
} from "../failover.ts";
import { SharedTrips } from "../shared-trips.ts";
import { electrumAnswerCheck, electrumBatchCheck } from "./answer-check.ts";
import { ElectrumUpstream } from "./client.ts";
import type { ElectrumOutcome, ElectrumServerVersion, ElectrumTip } from "./connection.ts";
import { ScripthashFeed, type ScripthashFeedOptions } from "./scripthash-feed.ts";

export type ElectrumPoolOutcome =
  /** `bytes`: what the answer took on the wire, when known. */
  { ok: true; answer: RpcAnswer; upstream: string; bytes?: number } | PoolFailure;

/** Each call's outcome of a batch (ElectrumPool.batch), in the order of the calls. */
export type ElectrumBatchOutcome = (
  | ElectrumPoolOutcome
  | { ok: false; retryable: boolean; error: GatewayError }
)[];

/**
 * Read-only methods whose identical requests in flight share one trip (../shared-trips.ts): the
 * look-ups, the gateway's own and its clients'. A broadcast is never shared (it has effects), nor
 * a headers subscription (it is per connection).
 */
const SHAREABLE_METHODS: ReadonlySet<string> = new Set([
  "blockchain.transaction.get",
  "blockchain.transaction.get_merkle",
  "blockchain.transaction.id_from_pos",
  "blockchain.block.header",
  "blockchain.block.headers",
  "blockchain.scripthash.get_history",
  "blockchain.scripthash.get_balance",
  "blockchain.scripthash.get_mempool",
  "blockchain.scripthash.listunspent",
  "blockchain.estimatefee",
  "blockchain.relayfee",
  "mempool.get_fee_histogram",
]);

/**
 * Read-only methods a pool may send to a second server (retry, hedge): the shared ones, the
 * probes and the server's descriptions. A broadcast is sent once.
 */
const READ_METHODS: ReadonlySet<string> = new Set([
  ...SHAREABLE_METHODS,
  "server.ping",
  "server.features",
  "server.banner",
  "blockchain.headers.subscribe",
]);

/** Proven memberships kept (see ElectrumPool.proven). */
const PROVEN_MAX = 100_000;

export interface ElectrumPoolOptions {
  policy?: FailoverPolicy | undefined;
  observer?: PoolObserver | undefined;
  onShared?: (() => void) | undefined;
  /** Script hashes held subscribed upstream (electrum.upstreamSubscriptionsMax). */
  upstreamSubscriptionsMax?: number | undefined;
  warn?: ScripthashFeedOptions["warn"];
}

/**
 * Several Electrum servers for one network, with failover (see FailoverPool): a server that
 * cannot take the request (no connection, connection lost, too busy), or does not answer a read
 * in time, counts against its breaker and the request goes to the next; slow reads are hedged.
 * A server that reconnects has its breaker closed at once: the connection is the evidence.
 */
export class ElectrumPool {
  readonly upstreams: ElectrumUpstream[];
  private readonly pool: FailoverPool<ElectrumUpstream>;
  /** Identical look-ups in flight share one trip (see SHAREABLE_METHODS). */
  readonly shared: SharedTrips<ElectrumPoolOutcome>;
  /** Script-hash subscriptions of the network's socket sessions, on a connection of their own. */
  readonly scripthashes: ScripthashFeed;

  constructor(configs: readonly ElectrumUpstreamConfig[], opts: ElectrumPoolOptions = {}) {
    this.upstreams = configs.map((c) => new ElectrumUpstream(c));
    this.pool = new FailoverPool(this.upstreams, {
      policy: opts.policy,
      observer: opts.observer,
      budgetMs: Math.max(...configs.map((c) => c.timeoutMs)),
      what: "the Electrum server",
    });
    for (const u of this.upstreams) u.on("connected", () => this.pool.recovered(u));
    this.shared = new SharedTrips(opts.onShared);
    this.scripthashes = new ScripthashFeed(configs, {
      subscriptionsMax: opts.upstreamSubscriptionsMax ?? 10_000,
      warn: opts.warn,
    });
  }

  /** The network's verified chain, where there is one (the composition root sets it). */
  chain: ChainView | undefined;
  /** Memberships proven by merkle branches: a block's transactions never change. */
  readonly proven = new LruMap<string, Membership>(PROVEN_MAX);

  start(): void {
    for (const u of this.upstreams) u.start();
  }

  request(method: string, params: Json[]): Promise<ElectrumPoolOutcome> {
    const trip = () =>
      this.pool.run<{ ok: true; answer: RpcAnswer; bytes?: number | undefined }>(
        async (upstream, signal) => {
          const out = await upstream.request(method, params, signal);
          return out.ok ? { ok: true as const, answer: out.answer, bytes: out.bytes } : out;
        },
        {
          idempotent: READ_METHODS.has(method),
          check: electrumAnswerCheck(method, params, this.chain),
        },
      );
    if (!SHAREABLE_METHODS.has(method)) return trip();
    return this.shared.run(`${method} ${stringifyJson(params)}`, trip);
  }

  /**
   * Several calls as one JSON-RPC batch to one server: one round trip, each call its own answer.
   * The batch fails over whole (read methods only) when the server cannot take it or a call of it
   * got no answer it can retry elsewhere; a server's refusal of one call is that call's answer.
   * Not shared with identical trips in flight: a batch is one trip of its own.
   */
  async batch(calls: readonly RpcCall[]): Promise<ElectrumBatchOutcome> {
    const out = await this.pool.run<{ ok: true; outcomes: ElectrumOutcome[] }>(
      async (upstream, signal) => {
        const outs = await upstream.batch(calls, signal);
        const failed = outs.find((o) => !o.ok && o.retryable);
        if (failed) return failed as Extract<ElectrumOutcome, { ok: false }>;
        return { ok: true as const, outcomes: outs };
      },
      {
        idempotent: calls.every((c) => READ_METHODS.has(c.method)),
        check: electrumBatchCheck(calls, this.chain),
      },
    );
    if (!out.ok) return calls.map(() => out);
    return out.outcomes.map((o) =>
      o.ok ? { ok: true as const, answer: o.answer, upstream: out.upstream } : o,
    );
  }

  /** What the first server with an open connection said to server.version, or null. */
  serverVersion(): (ElectrumServerVersion & { upstream: string }) | null {
    for (const u of this.upstreams) {
      const version = u.serverVersion();
      if (version) return { ...version, upstream: u.name };
    }
    return null;
  }

  /** Holds a server out of the pool while its chain disagrees with the verified one (null: puts it back). */
  setInconsistent(name: string, reason: string | null): void {
    this.pool.setInconsistent(name, reason);
  }

  /**
   * The highest tip any live headers subscription reports, or null when none is live; a server
   * held out for disagreeing with the verified chain is not asked.
   */
  tip(): ElectrumTip | null {
    let best: ElectrumTip | null = null;
    for (const u of this.upstreams) {
      if (this.pool.isInconsistent(u.name)) continue;
      const tip = u.tip();
      if (tip && (!best || tip.height > best.height)) best = tip;
    }
    return best;
  }

  /**
   * Calls `fn` with each new tip a server's headers subscription announces (the chain follower
   * looks at once rather than at its next poll); returns the way to stop.
   */
  onTip(fn: (tip: ElectrumTip) => void): () => void {
    for (const u of this.upstreams) u.on("tip", fn);
    return () => {
      for (const u of this.upstreams) u.off("tip", fn);
    };
  }

  /** For /readyz: each member up or down (see FailoverPool.health). */
  health(opts: HealthOptions): Promise<PoolHealth> {
    return this.pool.health(opts);
  }

  close(abort = false): Promise<void> {
    this.scripthashes.close();
    return this.pool.close(abort);
  }
}
