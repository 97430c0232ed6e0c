import type { RpcAnswer, RpcCall } from "../../protocol/json/types.ts";
import type { PoolFailure } from "../failover.ts";

/** A request's calls answered in its order by the named upstream, or one failure for them all. */
export type PoolOutcome = { ok: true; answers: RpcAnswer[]; upstream: string } | PoolFailure;

/**
 * Methods whose calls may share a JSON-RPC batch with other requests' calls: read-only lookups
 * Core answers at once from its indexes or its in-memory state, in small answers. Anything else
 * goes in an upstream request of its own: a batch runs in one Core worker, item after item, so a
 * slow item delays every call behind it — a whole block (`getblock`, `gettxoutproof`,
 * `getblockstats` read it from disk, verbosity 3 with its undo data), the whole mempool
 * (`getrawmempool`), `waitfornewblock` and its kin (held up to their timeout); a call with effects
 * (`sendrawtransaction`) must succeed or fail on its own; and a method not named here is one nobody
 * has judged.
 */
export const COMBINABLE_METHODS: ReadonlySet<string> = new Set([
  "getrawtransaction",
  "getblockhash",
  "getblockcount",
  "getbestblockhash",
  "getblockheader",
  "getblockchaininfo",
  "getdifficulty",
  "getmempoolinfo",
  "getmempoolentry",
  "gettxout",
  "estimatesmartfee",
  "getnetworkinfo",
  "uptime",
  "validateaddress",
]);

/**
 * Methods that only read: a call of one may be sent to a second node when the first is slow or
 * fails (the pool's retries and hedges), since running it twice changes nothing. Anything not
 * named here (`sendrawtransaction`) is sent once.
 */
export const READ_METHODS: ReadonlySet<string> = new Set([
  ...COMBINABLE_METHODS,
  "getblock",
  "getblockstats",
  "getchaintips",
  "getrawmempool",
  "gettxoutproof",
  "decoderawtransaction",
  "decodescript",
  // Checks against the mempool without adding to it: no effects.
  "testmempoolaccept",
]);

/**
 * Sends calls as one upstream request, failover included. `bytesMax`: what the answer may take,
 * the sum of what each request the calls come from may take.
 */
export type Send = (calls: readonly RpcCall[], bytesMax: number) => Promise<PoolOutcome>;

interface Waiting {
  calls: readonly RpcCall[];
  bytesMax: number;
  resolve(out: PoolOutcome): void;
  reject(err: unknown): void;
}

/**
 * Combines the calls of concurrent requests to one network's full nodes into one JSON-RPC batch.
 *
 * When that is faster — the rule: requests whose calls reach the pool within one turn of the event
 * loop are sent together at `setImmediate`, as one batch of at most `callsMax` calls; a request
 * that would take a batch past the bound closes it (it goes out at once) and starts the next, so
 * a burst becomes several batches on several connections. Why a bound: Core runs a batch's items
 * one after another in one HTTP worker, so combining trades the node's parallelism (-rpcthreads,
 * 16 by default since v29, 4 before) for round trips. What a round trip costs is per request, not
 * per call: on Core a work-queue slot (-rpcworkqueue, 64 since v29, 16 before; past it Core
 * answers 503), a hand-off to a worker, authentication and JSON parsing; on the gateway a request
 * to write and an answer to read and parse, on the CPU that also runs billing. The default, 16 calls, still spreads a burst of 64 single calls over four
 * of the node's workers instead of serialising it in one, and keeps what a batch adds to each
 * call's wait (Core answers the batch whole) to 15 other look-ups. A request alone in its turn goes
 * out as it came, one `setImmediate` later (microseconds); a request that reaches the bound by
 * itself, or holds a method not in COMBINABLE_METHODS, goes out at once, alone. One request's
 * calls are never split, nor reordered.
 *
 * Combining happens before failover: the combined batch goes to one member and fails over as a
 * whole, and when it fails (HTTP error, timeout, unreadable answer) every request in it gets that
 * same failure, as each would have alone — except an answer too large for the requests together
 * (RESPONSE_TOO_LARGE): that says nothing of each, so each request is then sent again alone, and
 * only one that asked too much by itself is refused. An RPC error of one item (Core's -5) is an answer, and
 * stays with the request that asked. Identical calls stay separate items here: the pool shares
 * identical calls in flight before they reach the combiner (pool.ts, ../shared-trips.ts).
 */
export class Combiner {
  private group: Waiting[] = [];
  private groupCalls = 0;
  private tick: NodeJS.Immediate | null = null;

  constructor(
    private readonly send: Send,
    /** 0 or 1: every request goes alone, at once (combining off). */
    private readonly callsMax: number,
    /** Told of each batch that combines two requests or more. */
    private readonly onCombined: (requests: number, calls: number) => void = () => {},
  ) {}

  /** `bytesMax`: what the request's answer may take (server.responseBytesMax, or what is left). */
  submit(calls: readonly RpcCall[], bytesMax: number): Promise<PoolOutcome> {
    if (
      calls.length === 0 ||
      calls.length >= this.callsMax ||
      !calls.every((c) => COMBINABLE_METHODS.has(c.method))
    ) {
      return this.send(calls, bytesMax);
    }
    if (this.groupCalls + calls.length > this.callsMax) this.flush();
    const out = new Promise<PoolOutcome>((resolve, reject) => {
      this.group.push({ calls, bytesMax, resolve, reject });
    });
    this.groupCalls += calls.length;
    if (this.groupCalls === this.callsMax) this.flush();
    else this.tick ??= setImmediate(() => this.flush());
    return out;
  }

  /** Sends what is waiting now (the turn ended, the bound was reached, or the pool closes). */
  flush(): void {
    if (this.tick) clearImmediate(this.tick);
    this.tick = null;
    const group = this.group;
    this.group = [];
    this.groupCalls = 0;
    if (group.length === 0) return;
    if (group.length === 1) {
      const only = group[0]!;
      this.send(only.calls, only.bytesMax).then(only.resolve, only.reject);
      return;
    }
    const calls = group.flatMap((w) => w.calls);
    this.onCombined(group.length, calls.length);
    const bytesMax = group.reduce((sum, w) => sum + w.bytesMax, 0);
    this.send(calls, bytesMax).then(
      (out) => {
        if (!out.ok && out.error.code === "RESPONSE_TOO_LARGE") {
          for (const w of group) this.send(w.calls, w.bytesMax).then(w.resolve, w.reject);
          return;
        }
        let end = 0;
        for (const w of group) {
          const start = end;
          end += w.calls.length;
          w.resolve(
            out.ok
              ? { ok: true, answers: out.answers.slice(start, end), upstream: out.upstream }
              : out,
          );
        }
      },
      (err: unknown) => {
        for (const w of group) w.reject(err);
      },
    );
  }
}
