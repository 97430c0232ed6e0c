import { GraphQLError } from "graphql";
import type { CallContext } from "../../../billing/metering/context.ts";
import { meterDelivery } from "../../../billing/metering/pipeline.ts";
import { eventPrice } from "../../../billing/pricing/prices.ts";
import {
  type AddressActivity,
  addressActivityOf,
  type Confirmations,
  confirmationsOf,
  type EventSource,
  type FeeRates,
  feesOf,
  newBlocks,
  validTargets,
} from "../../../events/sources.ts";
import type { ChainEvent } from "../../../events/types.ts";
import type { BitcoinCorePool } from "../../../upstreams/bitcoin-core/pool.ts";
import { builder } from "../builder.ts";
import type { GraphQLContext } from "../context.ts";
import { codedError, fromGatewayError } from "../errors.ts";
import { Amount } from "./amount.ts";

const ChainEventKind = builder.enumType("ChainEventKind", {
  values: {
    CONNECTED: { description: "The block joined the best chain." },
    DISCONNECTED: {
      description:
        "A reorganisation took the block off the best chain (announced before the blocks that replace it).",
    },
  },
});

const BlockEventRef = builder.objectRef<ChainEvent>("BlockEvent").implement({
  description: "A change of the route's network's best chain.",
  fields: (t) => ({
    kind: t.field({
      type: ChainEventKind,
      resolve: (e) => (e.kind === "connected" ? "CONNECTED" : "DISCONNECTED"),
    }),
    height: t.int({ resolve: (e) => e.height }),
    hash: t.field({ type: "BlockHash", resolve: (e) => e.hash }),
    previousHash: t.field({ type: "BlockHash", nullable: true, resolve: (e) => e.previousHash }),
    time: t.int({ description: "The header's time (Unix seconds).", resolve: (e) => e.time }),
  }),
});

/**
 * The call context of one delivery: the subscription's, with the delivery's own request id and
 * clock. Only what the pipeline reads, written out: a copy of the whole GraphQL context for each
 * delivery to each subscriber was a good part of the fan-out's cost.
 */
function deliveryContext(ctx: GraphQLContext, requestId: string): CallContext {
  const out: CallContext = {
    services: ctx.services,
    requestId,
    owner: ctx.owner,
    backend: ctx.backend,
    backendSegment: ctx.backendSegment,
    network: ctx.network,
    startedAt: Date.now(),
  };
  if (ctx.idempotency) out.idempotency = ctx.idempotency;
  if (ctx.electrum) out.electrum = ctx.electrum;
  if (ctx.requireVerified !== undefined) out.requireVerified = ctx.requireVerified;
  if (ctx.charge) out.charge = ctx.charge;
  return out;
}

/** What a subscription's stream carries: an event to deliver, or the error that ends it. */
type Delivery<T> = T | GraphQLError;

/**
 * The route's network's chain events as a subscription's source, each charged as it is delivered:
 * one pass through the metering pipeline per event (reserve, settle, one audit record), priced
 * `pricing.events.<name>`. The stream ends with one final error, delivered as the last event, when
 * the balance no longer covers an event (INSUFFICIENT_CREDITS, or a plan's cap), when the token
 * is revoked (at once, from the revocation signal) or expires, and ends plainly when the gateway
 * shuts down. An iterator rather than a generator: a client that goes away (`return()`) must end
 * it at once, even while it waits for the next block, so that nothing is charged after it left.
 */
class ChainEventStream<T> implements AsyncIterableIterator<Delivery<T>> {
  private readonly queue: ChainEvent[] = [];
  /** `next` calls not answered yet, in order (a consumer may ask again before an answer). */
  private readonly pending: ((r: IteratorResult<Delivery<T>>) => void)[] = [];
  private ending: GraphQLError | "done" | null = null;
  private finished = false;
  /** An event is being charged: answers go out one at a time, in order. */
  private charging = false;
  private sequence = 0;
  private readonly stops: (() => void)[];
  private readonly expiry: NodeJS.Timeout | null;

  constructor(
    private readonly ctx: GraphQLContext,
    private readonly source: EventSource<T>,
  ) {
    this.stops = [
      ctx.services.events.subscribe(ctx.network, (e) => {
        this.queue.push(e);
        this.pump();
      }),
      ctx.services.events.onClose(() => this.end("done")),
      ctx.services.tokens.watchRevocation(ctx.owner.tokenId, () =>
        this.end(codedError("UNAUTHENTICATED", "the token was revoked: the subscription ends")),
      ),
    ];
    // The client's connection closed (SSE): nothing more is delivered, or charged.
    const closed = ctx.closed;
    if (closed) {
      const onClosed = () => this.finish();
      closed.addEventListener("abort", onClosed, { once: true });
      this.stops.push(() => closed.removeEventListener("abort", onClosed));
      if (closed.aborted) queueMicrotask(onClosed);
    }
    const expiresAt = ctx.owner.expiresAt?.getTime();
    this.expiry =
      expiresAt === undefined
        ? null
        : setTimeout(
            () =>
              this.end(codedError("UNAUTHENTICATED", "the token expired: the subscription ends")),
            Math.max(0, Math.min(expiresAt - Date.now(), 2 ** 31 - 1)),
          );
    this.expiry?.unref();
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<Delivery<T>>> {
    if (this.finished) return Promise.resolve({ done: true, value: undefined });
    return new Promise((resolve) => {
      this.pending.push(resolve);
      this.pump();
    });
  }

  async return(): Promise<IteratorResult<Delivery<T>>> {
    this.finish();
    return { done: true, value: undefined };
  }

  private end(why: GraphQLError | "done"): void {
    this.ending ??= why;
    this.pump();
  }

  /** Answers the oldest waiting `next` with what there is: a final error, the end, or an event. */
  private pump(): void {
    if (this.charging || this.finished || this.pending.length === 0) return;
    if (this.ending !== null) {
      const why = this.ending;
      this.ending = "done";
      if (why === "done") this.finish();
      else this.pending.shift()!({ done: false, value: why });
      return;
    }
    const event = this.queue.shift();
    if (!event) return;
    this.charging = true;
    void this.deliverable(event).then((delivery) => {
      this.charging = false;
      if (this.finished) return;
      if (delivery !== null) {
        if (delivery instanceof GraphQLError || this.source.last?.(delivery)) this.ending = "done";
        this.pending.shift()!({ done: false, value: delivery });
      }
      this.pump();
    });
  }

  /** The chain event's delivery, charged; null when the source makes nothing of it. */
  private async deliverable(event: ChainEvent): Promise<Delivery<T> | null> {
    let value: T | null;
    try {
      value = await this.source.translate(event);
    } catch (err) {
      return err instanceof GraphQLError ? err : codedError("INTERNAL", "internal error");
    }
    if (value === null) return null;
    const ctx = this.ctx;
    this.sequence += 1;
    const { name } = this.source;
    const price = eventPrice(ctx.services.config, name, ctx.network);
    const cost = await meterDelivery(
      deliveryContext(ctx, `${ctx.requestId}.${this.sequence}`),
      { kind: "priced", method: name, price },
      value,
    );
    if (cost.ok) return value;
    const error = fromGatewayError(cost.error);
    return new GraphQLError(`${error.message}: the subscription ends`, {
      extensions: { ...error.extensions, balance: cost.available, required: cost.required },
    });
  }

  /** Stops listening, and answers every waiting `next` with the end. */
  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    for (const stop of this.stops) stop();
    if (this.expiry) clearTimeout(this.expiry);
    for (const resolve of this.pending.splice(0)) resolve({ done: true, value: undefined });
  }
}

const ConfirmationsRef = builder.objectRef<Confirmations>("TransactionConfirmations").implement({
  description: "A transaction's place in the best chain after a block came or went.",
  fields: (t) => ({
    txid: t.field({ type: "TxId", resolve: (c) => c.txid }),
    confirmations: t.int({
      description: "0 in the mempool (or taken off the chain by a reorganisation).",
      resolve: (c) => c.confirmations,
    }),
    blockHash: t.field({ type: "BlockHash", nullable: true, resolve: (c) => c.blockHash }),
  }),
});

const FeeRatesRef = builder.objectRef<FeeRates>("MempoolFees").implement({
  description:
    "Core's fee estimates (estimatesmartfee) once a block came, per confirmation target.",
  fields: (t) => ({
    height: t.int({ description: "The tip the estimates follow.", resolve: (f) => f.height }),
    estimates: t.field({
      type: [
        builder.objectRef<FeeRates["estimates"][number]>("MempoolFeeEstimate").implement({
          fields: (u) => ({
            target: u.int({ resolve: (e) => e.target }),
            satPerVbyte: u.float({ nullable: true, resolve: (e) => e.satPerVbyte }),
          }),
        }),
      ],
      resolve: (f) => f.estimates,
    }),
  }),
});

const AddressActivityRef = builder.objectRef<AddressActivity>("AddressActivity").implement({
  description:
    "What one block did to an address: the block's transactions paying to it or spending from it.",
  fields: (t) => ({
    address: t.string({ resolve: (a) => a.address }),
    kind: t.field({
      type: ChainEventKind,
      description:
        "DISCONNECTED: a reorganisation took the block, and this activity, off the chain.",
      resolve: (a) => (a.kind === "connected" ? "CONNECTED" : "DISCONNECTED"),
    }),
    height: t.int({ resolve: (a) => a.height }),
    hash: t.field({ type: "BlockHash", resolve: (a) => a.hash }),
    transactions: t.field({
      type: [
        builder
          .objectRef<AddressActivity["transactions"][number]>("AddressActivityTransaction")
          .implement({
            fields: (u) => ({
              txid: u.field({ type: "TxId", resolve: (x) => x.txid }),
              received: u.field({
                type: Amount,
                description: "Paid to the address by the transaction's outputs.",
                resolve: (x) => x.received,
              }),
              sent: u.field({
                type: Amount,
                description: "Spent from the address by the transaction's inputs.",
                resolve: (x) => x.sent,
              }),
            }),
          }),
      ],
      resolve: (a) => [...a.transactions],
    }),
  }),
});

/** The route's network's node pool, which the chain's look-ups go to; refused without one. */
function nodeOf(ctx: GraphQLContext): BitcoinCorePool {
  const pool = ctx.services.nodes.get(ctx.network);
  if (!pool) throw codedError("UPSTREAM_UNAVAILABLE", "no full node for this network");
  return pool;
}

/** A delivery as the field's value: the final error is thrown, so it reaches the client as such. */
function delivered<T>(delivery: Delivery<T>): T {
  if (delivery instanceof GraphQLError) throw delivery;
  return delivery;
}

builder.subscriptionType({});

/**
 * The subscription fields whose every delivery is one object for all the network's subscribers
 * (the chain event itself) and whose type's fields read only it, never the context: their events
 * are executed once per document for all subscribers (plugins/shared-events.ts). A field whose
 * source makes a delivery per subscriber, or whose fields read the context, must not be here.
 */
export const SHARED_EVENT_FIELDS: ReadonlySet<string> = new Set(["newBlock"]);

builder.subscriptionFields((t) => ({
  newBlock: t.field({
    type: BlockEventRef,
    nullable: true,
    description:
      "Each block connected to (or, in a reorganisation, disconnected from) the route's network's best chain, as the gateway's chain follower sees it. Each event is charged `pricing.events.newBlock` as it is delivered; the subscription ends with one final error (null data) when the balance runs out or the token is revoked or expires.",
    subscribe: (_root, _args, ctx) => new ChainEventStream(ctx, newBlocks()),
    resolve: (delivery: Delivery<ChainEvent>) => delivered(delivery),
  }),
  mempoolFees: t.field({
    type: FeeRatesRef,
    nullable: true,
    description:
      "Core's fee estimates (sat/vB) for the confirmation targets asked, after each block, when they changed. Each delivery is charged `pricing.events.mempoolFees`; it ends with one final error as newBlock does.",
    args: { targets: t.arg.intList({ defaultValue: [1, 6, 144] }) },
    subscribe: (_root, { targets }, ctx) => {
      const asked = targets ?? [1, 6, 144];
      if (!validTargets(asked)) {
        throw codedError("INVALID_PARAMS", "targets: 1 to 25 of 1 – 1008 blocks");
      }
      return new ChainEventStream(ctx, feesOf(nodeOf(ctx), asked));
    },
    resolve: (delivery: Delivery<FeeRates>) => delivered(delivery),
  }),
  addressActivity: t.field({
    type: AddressActivityRef,
    nullable: true,
    description:
      "An address's activity in each block connected to (or disconnected from) the best chain: the block's transactions that pay to it or spend from it, with the amounts, delivered for a block with any (confirmed activity only; the mempool is not watched). Each delivery is charged `pricing.events.addressActivity`; it ends with one final error as newBlock does. An address of another network is INVALID_PARAMS.",
    args: { address: t.arg.string({ required: true }) },
    subscribe: (_root, { address }, ctx) => {
      const source = addressActivityOf(nodeOf(ctx), address, ctx.network);
      if (!source) {
        throw codedError("INVALID_PARAMS", `not an address of ${ctx.network}: ${address}`);
      }
      return new ChainEventStream(ctx, source);
    },
    resolve: (delivery: Delivery<AddressActivity>) => delivered(delivery),
  }),
  transactionConfirmations: t.field({
    type: ConfirmationsRef,
    nullable: true,
    description:
      "A transaction's confirmations each time a block comes or goes and the count changed, until it reaches `until` (then the subscription completes). Each delivery is charged `pricing.events.transactionConfirmations`; it ends with one final error as newBlock does.",
    args: {
      txid: t.arg({ type: "TxId", required: true }),
      until: t.arg.int({ defaultValue: 6 }),
    },
    subscribe: (_root, { txid, until }, ctx) =>
      new ChainEventStream(ctx, confirmationsOf(nodeOf(ctx), txid.toLowerCase(), until ?? 6)),
    resolve: (delivery: Delivery<Confirmations>) => delivered(delivery),
  }),
}));
