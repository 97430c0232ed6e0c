import type { BitcoinCoreUpstreamConfig } from "../../config/schema.ts";
import type { GatewayError } from "../../protocol/errors/codes.ts";
import type { Json } from "../../protocol/json/json.ts";
import { allPlainScalars, stringifyJson } from "../../protocol/json/json.ts";
import type { RpcAnswer, RpcCall } from "../../protocol/json/types.ts";
import {
  type FailoverPolicy,
  FailoverPool,
  type HealthOptions,
  type PoolHealth,
  type PoolObserver,
} from "../failover.ts";
import { SharedTrips } from "../shared-trips.ts";
import { coreAnswersCheck } from "./answer-check.ts";
import { type ClaimsOutcome, CoreBlockClaims } from "./block-claims.ts";
import { BlockSizes } from "./block-sizes.ts";
import { BitcoinCoreClient } from "./client.ts";
import { COMBINABLE_METHODS, Combiner, type PoolOutcome, READ_METHODS } from "./combine.ts";

export type { ClaimsOutcome } from "./block-claims.ts";
export type { PoolOutcome } from "./combine.ts";

/** Told of each JSON-RPC batch that combined several requests' calls (for metrics). */
export type CombinedObserver = (requests: number, calls: number) => void;

export interface BitcoinCorePoolOptions {
  policy?: FailoverPolicy | undefined;
  observer?: PoolObserver | undefined;
  onCombined?: CombinedObserver | undefined;
  onShared?: (() => void) | undefined;
  /** What one request's answer may take when the caller says nothing (server.responseBytesMax). */
  responseBytesMax?: number | undefined;
}

/** server.responseBytesMax's default, for pools built outside a gateway (tests, benches). */
const RESPONSE_BYTES_MAX = 64 * 1024 * 1024;

/** One call's share of a round trip. */
type CallOutcome =
  | { ok: true; answer: RpcAnswer; upstream: string }
  | { ok: false; error: GatewayError };

/**
 * The full nodes of one network, in three layers, top down: identical read-only calls in flight
 * share one trip (shared-trips.ts); the calls left, of concurrent requests, are combined into
 * batches (combine.ts); each batch goes out with failover (FailoverPool: reads retried and
 * hedged). Sharing sits above combining so a call shared by fifty requests is one batch item.
 */
export class BitcoinCorePool {
  private readonly pool: FailoverPool<BitcoinCoreClient>;
  private readonly nodes: BitcoinCoreClient[];
  private readonly combiner: Combiner;
  readonly shared: SharedTrips<CallOutcome>;
  /** What its answers claim about the chain, checked against the verified one (block-claims.ts). */
  readonly claims = new CoreBlockClaims();
  /** The blocks its getblock answers were about (for answers known too large before asking). */
  readonly blockSizes = new BlockSizes();
  private readonly responseBytesMax: number;

  constructor(configs: readonly BitcoinCoreUpstreamConfig[], opts: BitcoinCorePoolOptions = {}) {
    this.nodes = configs.map((c) => new BitcoinCoreClient(c));
    this.pool = new FailoverPool(this.nodes, {
      policy: opts.policy,
      observer: opts.observer,
      budgetMs: Math.max(...configs.map((c) => c.timeoutMs)),
      what: "the full node",
    });
    // Combining comes before failover, so a combined batch may go to any member: it is sized for
    // the strictest one, and a member with combining off (0) turns it off for the network.
    const callsMax = Math.min(...configs.map((c) => c.coalesceCallsMax));
    this.combiner = new Combiner(
      (calls, bytesMax) =>
        this.pool.run((client, signal) => client.batch(calls, undefined, bytesMax, signal), {
          idempotent: calls.every((c) => READ_METHODS.has(c.method)),
          check: coreAnswersCheck(calls),
        }),
      callsMax,
      opts.onCombined,
    );
    this.shared = new SharedTrips(opts.onShared);
    this.responseBytesMax = opts.responseBytesMax ?? RESPONSE_BYTES_MAX;
  }

  /**
   * A request's calls, answered in its order: each either shares a trip already in flight for the
   * same call, or goes in one new round trip with the request's other new calls (perhaps combined
   * with other requests'). When any trip the request depends on fails as a whole, the request
   * fails with that error, as it would have had it made the trip alone — save a trip too large
   * for another request's bound: then the request's calls go again in a trip of its own.
   * `bytesMax`: what the request's answer may take (server.responseBytesMax by default). Each
   * answer comes with how far it was verified, its block claims checked (block-claims.ts).
   */
  async batch(calls: readonly RpcCall[], bytesMax = this.responseBytesMax): Promise<ClaimsOutcome> {
    const out = await this.send(calls, bytesMax);
    if (!out.ok) return out;
    this.blockSizes.learn(calls, out.answers);
    return this.claims.check(calls, out, (proofs) => this.send(proofs, this.responseBytesMax));
  }

  private async send(calls: readonly RpcCall[], bytesMax: number): Promise<PoolOutcome> {
    if (calls.length === 0 || !calls.every((c) => COMBINABLE_METHODS.has(c.method)))
      return this.alone(calls, bytesMax);
    const keys = calls.map((c) => `${c.method} ${paramsKey(c.params)}`);
    // The calls this request sends itself: the first of each key that no trip in flight covers.
    const own: RpcCall[] = [];
    let sent: Promise<PoolOutcome> | null = null;
    const send = () => {
      sent ??= Promise.resolve().then(() => this.combiner.submit(own, bytesMax));
      return sent;
    };
    const shares = calls.map((call, i) =>
      this.shared.run(keys[i]!, () => {
        own.push(call);
        const at = own.length - 1;
        return send().then(
          (out): CallOutcome =>
            out.ok ? { ok: true, answer: out.answers[at]!, upstream: out.upstream } : out,
        );
      }),
    );
    const outcomes = await Promise.all(shares);
    const failed = outcomes.find((o) => !o.ok);
    if (failed && !failed.ok) {
      const joined = new Set(keys).size > own.length;
      if (joined && failed.error.code === "RESPONSE_TOO_LARGE") return this.alone(calls, bytesMax);
      return failed;
    }
    const answers = outcomes.map((o) => (o.ok ? o.answer : { result: null }));
    const first = outcomes[0];
    return { ok: true, answers, upstream: first?.ok ? first.upstream : "" };
  }

  /**
   * The request's calls in a trip of its own; identical reads in it are asked once (a batch of
   * the same getblock fifty times costs the node one block) and their answer given to each.
   */
  private async alone(calls: readonly RpcCall[], bytesMax: number): Promise<PoolOutcome> {
    const firstOf = new Map<string, number>();
    const unique: RpcCall[] = [];
    const slot = calls.map((c, i) => {
      const key = READ_METHODS.has(c.method) ? `${c.method} ${paramsKey(c.params)}` : `#${i}`;
      let at = firstOf.get(key);
      if (at === undefined) {
        at = unique.push(c) - 1;
        firstOf.set(key, at);
      }
      return at;
    });
    if (unique.length === calls.length) return this.combiner.submit(calls, bytesMax);
    const out = await this.combiner.submit(unique, bytesMax);
    if (!out.ok) return out;
    return { ok: true, answers: slot.map((at) => out.answers[at]!), upstream: out.upstream };
  }

  /** Each node, for what must ask one member alone (the verified chain compares them). */
  clients(): readonly BitcoinCoreClient[] {
    return this.nodes;
  }

  /** Holds a node out of the pool while its chain disagrees with the verified one (null: puts it back). */
  setInconsistent(name: string, reason: string | null): void {
    this.pool.setInconsistent(name, reason);
  }

  /** Each node's breaker state (tests). */
  breakers() {
    return this.pool.breakers();
  }

  /** For /readyz: each member up or down (see FailoverPool.health). */
  health(opts: HealthOptions): Promise<PoolHealth> {
    return this.pool.health(opts);
  }

  close(abort = false): Promise<void> {
    // Calls waiting for the end of the turn are sent before the connections close, not stranded.
    this.combiner.flush();
    return this.pool.close(abort);
  }
}

/**
 * A call's parameters as the key its shared trip goes by: their JSON text (the native writer's
 * when it writes the same: allPlainScalars).
 */
export function paramsKey(params: readonly Json[]): string {
  return allPlainScalars(params) ? JSON.stringify(params) : stringifyJson(params);
}
