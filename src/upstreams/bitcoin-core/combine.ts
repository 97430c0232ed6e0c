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
 * Requests whose calls reach the pool within one turn of the event loop go together at
 * `setImmediate`, at most `callsMax` calls a batch; one that would pass the bound closes the batch
 * and starts the next. The bound exists because Core runs a batch's items one after another in one
 * worker: combining trades the node's parallelism (-rpcthreads) for round trips (each costs a
 * -rpcworkqueue slot, authentication and parsing). One request's calls are never split or
 * reordered; methods outside COMBINABLE_METHODS go alone. A combined batch fails over as a whole
 * and each request gets its failure, except RESPONSE_TOO_LARGE, after which each is sent alone.
 * Identical calls are shared before they get here (pool.ts, ../shared-trips.ts).
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
