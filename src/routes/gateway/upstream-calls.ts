import DataLoader from "dataloader";
import type { GraphQLError } from "graphql";
import { priceOf } from "../../billing/pricing/prices.ts";
import type { NetworkName } from "../../config/schema.ts";
import { gatewayError } from "../../protocol/errors/codes.ts";
import type { Json } from "../../protocol/json/json.ts";
import type { Verified } from "../../protocol/verified.ts";
import type { ElectrumBatchOutcome } from "../../upstreams/electrum/pool.ts";
import { codedError, fromGatewayError, fromNodeError } from "./errors.ts";
import type { GatewayServices } from "./services.ts";

/** One priced call of a typed field: the method, its parameters, and the price key it is charged at. */
export interface UpstreamCall {
  method: string;
  params: Json[];
  /** `<method>/<variant>` when a form is priced apart (getblock/2); the method by default. */
  priceKey?: string;
}

export type CallLoader = DataLoader<UpstreamCall, Json | GraphQLError, string>;

/** Where the calls go and are priced (a request's context). */
interface CallSite {
  services: GatewayServices;
  network: NetworkName;
}

/** The part of a request's meter (context.ts's Meter) the calls write to. */
interface CallMeter {
  calls: Map<string, { count: number; price: number }>;
  verified: Verified[];
}

const keyOf = (c: UpstreamCall) => JSON.stringify([c.method, c.params, c.priceKey ?? c.method]);

/** Adds `count` answered calls of `key` at `price` to a request's meter (what settles its charge). */
export function recordCalls(meter: CallMeter, key: string, price: number, count = 1): void {
  const used = meter.calls.get(key) ?? { count: 0, price };
  used.count += count;
  meter.calls.set(key, used);
}

/** Meters a call an upstream answered (a result or its own error), at its configured price. */
function charge(ctx: CallSite, meter: CallMeter, call: UpstreamCall) {
  const key = call.priceKey ?? call.method;
  recordCalls(meter, key, priceOf(ctx.services.config, key, ctx.network) ?? 0);
  // The typed fields' other calls (fee estimates, the tip, address pages) are not checked.
  meter.verified.push("unchecked");
}

/**
 * The typed fields' calls to the full node, per request: identical calls are asked once, and the
 * calls of one tick go as one JSON-RPC batch (one round trip). Each answered call is metered at its
 * method's price from the same table as the node route (an answer over server.responseBytesMax
 * too: the node did the work); a call that got no answer is not.
 */
export function nodeCallLoader(ctx: CallSite, meter: CallMeter) {
  return new DataLoader<UpstreamCall, Json | GraphQLError, string>(
    async (calls) => {
      const pool = ctx.services.nodes.get(ctx.network);
      if (!pool) {
        const err = fromGatewayError(
          gatewayError("UPSTREAM_UNAVAILABLE", "no full node for this network"),
        );
        return calls.map(() => err);
      }
      const out = await pool.batch(calls.map((c) => ({ method: c.method, params: c.params })));
      if (!out.ok) {
        // Answered, over server.responseBytesMax: charged as answered (the node did the work).
        if (out.error.code === "RESPONSE_TOO_LARGE") for (const c of calls) charge(ctx, meter, c);
        return calls.map(() => fromGatewayError(out.error));
      }
      return out.answers.map((answer, i) => {
        charge(ctx, meter, calls[i]!);
        return "error" in answer ? fromNodeError(answer.error) : answer.result;
      });
    },
    { cacheKeyFn: keyOf, maxBatchSize: ctx.services.config.graphql.batchSize },
  );
}

/**
 * The same for the network's Electrum servers: the calls of a tick go as one JSON-RPC batch (one
 * round trip: `addresses(list:)` asks for N balances at once), a lone call as a request that may
 * share an identical one's trip. The server's own refusal is an answer (metered), as on the
 * Electrum route.
 */
export function electrumCallLoader(ctx: CallSite, meter: CallMeter) {
  return new DataLoader<UpstreamCall, Json | GraphQLError, string>(
    async (calls) => {
      const pool = ctx.services.electrum.get(ctx.network);
      if (!pool) {
        const err = fromGatewayError(
          gatewayError("UPSTREAM_UNAVAILABLE", "no Electrum server for this network"),
        );
        return calls.map(() => err);
      }
      const outs =
        calls.length === 1
          ? [await pool.request(calls[0]!.method, calls[0]!.params)]
          : await pool.batch(calls.map((c) => ({ method: c.method, params: c.params })));
      return outs.map((out, i) => electrumAnswer(ctx, meter, calls[i]!, out));
    },
    { cacheKeyFn: keyOf, maxBatchSize: ctx.services.config.graphql.batchSize },
  );
}

/** One call's outcome as its field sees it, metered when the server answered. */
function electrumAnswer(
  ctx: CallSite,
  meter: CallMeter,
  call: UpstreamCall,
  out: ElectrumBatchOutcome[number],
): Json | GraphQLError {
  if (!out.ok) {
    if (out.error.code === "RESPONSE_TOO_LARGE") charge(ctx, meter, call);
    return fromGatewayError(out.error);
  }
  charge(ctx, meter, call);
  if ("error" in out.answer) {
    return codedError("UPSTREAM_ERROR", out.answer.error.message, {
      electrumCode: out.answer.error.code,
    });
  }
  return out.answer.result;
}

/** A typed field's call: its answer, or the error it failed with thrown at the field. */
export async function ask(loader: CallLoader, call: UpstreamCall): Promise<Json> {
  const out = await loader.load(call);
  if (out instanceof Error) throw out;
  return out;
}
