import type { GraphRequest } from "../../protocol/hasura/request.ts";
import { type Json, stringifyJson } from "../../protocol/json/json.ts";
import type { CancelSignal } from "../../util/cancel.ts";
import { withDeadline } from "../deadline.ts";
import {
  type FailoverPolicy,
  FailoverPool,
  type HealthOptions,
  type PoolFailure,
  type PoolHealth,
  type PoolObserver,
} from "../failover.ts";
import { FinishedTrips } from "../finished-trips.ts";
import { SharedTrips } from "../shared-trips.ts";
import { IndexerClient, type IndexerUpstreamConfig } from "./client.ts";

export type IndexerOutcome =
  | { ok: true; data: { [key: string]: Json }; upstream: string }
  | PoolFailure;

export interface IndexerPoolOptions {
  policy?: FailoverPolicy | undefined;
  observer?: PoolObserver | undefined;
  onShared?: (() => void) | undefined;
  /** One answer, at most (server.responseBytesMax). */
  responseBytesMax?: number | undefined;
  /** How long after its end a trip's answer may still be taken, at most (graphql.sharedAfterTripMs). */
  sharedAfterTripMs?: number | undefined;
}

/**
 * The indexers of one network, with failover (see FailoverPool); every query only reads, so
 * every one may be retried on another indexer and hedged. Reusable beyond the graph
 * mirror: anything that needs the indexer's data (the unified schema's delegation) asks here.
 */
export class IndexerPool {
  private readonly pool: FailoverPool<IndexerClient>;
  /** Identical queries in flight share one trip (../shared-trips.ts). */
  readonly shared: SharedTrips<IndexerOutcome>;
  /** Answers of trips that ended moments ago, for the callers that may take them (../finished-trips.ts). */
  readonly finished: FinishedTrips<IndexerOutcome>;
  private readonly onShared: () => void;

  constructor(configs: readonly IndexerUpstreamConfig[], opts: IndexerPoolOptions = {}) {
    this.pool = new FailoverPool(
      configs.map((c) => new IndexerClient(c, opts.responseBytesMax)),
      {
        policy: opts.policy,
        observer: opts.observer,
        budgetMs: Math.max(...configs.map((c) => c.timeoutMs)),
        what: "the indexer",
      },
    );
    this.onShared = opts.onShared ?? (() => {});
    this.shared = new SharedTrips(this.onShared);
    this.finished = new FinishedTrips(opts.sharedAfterTripMs ?? 0, (outcome) => outcome.ok);
  }

  /**
   * One query; `deadline` (a signal, or ms from when the trip starts) bounds the whole attempt,
   * failover included; `parse` reads the answer
   * (lossless unless the caller says otherwise: see IndexerClient.query). An identical query
   * (same text, variables, operation name and reader) already in flight is joined instead of sent
   * again: the indexer only reads, so both callers get the one answer. A joiner waits under the
   * first caller's deadline, which every caller of a route sets alike (graph.queryTimeoutMs) and
   * which started earlier, so it never waits longer than its own would have let it.
   * `afterTrip`: the caller may also take the answer of an identical trip that ended moments ago,
   * within FinishedTrips' bounds (only the unified API's query plans ask it: decision 0058).
   */
  query(
    request: GraphRequest,
    deadline?: CancelSignal | number,
    parse?: (text: string) => Json,
    afterTrip = false,
  ): Promise<IndexerOutcome> {
    // The reader is part of the key: an answer read losslessly is not one read with JSON.parse.
    const reader = parse === undefined ? 0 : readerId(parse);
    const key = `${reader}\u0000${request.operationName ?? ""}\u0000${request.query}\u0000${stringifyJson(request.variables as Json)}`;
    const trip = (signal: CancelSignal | undefined) =>
      this.pool.run((client, attempt) => client.query(request, attempt, parse), {
        idempotent: true,
        signal,
      });
    if (afterTrip) {
      const ended = this.finished.get(key);
      if (ended) {
        this.onShared();
        return ended;
      }
    }
    // A deadline in ms is armed only by the caller whose trip it is: a joiner's would bound
    // nothing (it waits under the first caller's), and cost a timer and a controller per request.
    return this.shared.run(key, () => {
      const started = typeof deadline === "number" ? withDeadline(deadline, trip) : trip(deadline);
      // Kept only when its own caller may take ended trips: their answers stay read-only.
      if (afterTrip) this.finished.watch(key, started);
      return started;
    });
  }

  /** The chain's tip moved: no ended trip's answer is taken from here on. */
  newTip(): void {
    this.finished.newTip();
  }

  /** For /readyz: each member up or down (see FailoverPool.health). */
  health(opts: HealthOptions): Promise<PoolHealth> {
    return this.pool.health(opts);
  }

  close(abort = false): Promise<void> {
    return this.pool.close(abort);
  }
}

const readers = new WeakMap<(text: string) => Json, number>();
let readersSeen = 0;
/** A number per answer reader, for shared-trip keys. */
function readerId(parse: (text: string) => Json): number {
  let id = readers.get(parse);
  if (id === undefined) {
    readersSeen += 1;
    id = readersSeen;
    readers.set(parse, id);
  }
  return id;
}
