import { Refused, registerEndpoint, WEBHOOK_EVENTS } from "../../../webhooks/register.ts";
import {
  type AttemptRow,
  type Endpoint,
  endEndpoint,
  listEndpoints,
  recentAttempts,
} from "../../../webhooks/store.ts";
import { builder } from "../builder.ts";
import { codedError } from "../errors.ts";
import { AccountRef } from "./account.ts";
import { manager } from "./tokens.ts";

/**
 * Webhook endpoints: the account's, listed on Account, registered and deleted by two mutations
 * (free; each delivery the endpoint accepts is charged the event's price). An endpoint follows
 * the route's network and acts for the token that registered it.
 */
const WebhookEventEnum = builder.enumType("WebhookEvent", {
  values: Object.fromEntries(WEBHOOK_EVENTS.map((e) => [e, { value: e }])) as Record<
    (typeof WEBHOOK_EVENTS)[number],
    { value: (typeof WEBHOOK_EVENTS)[number] }
  >,
});

const AttemptRef = builder.objectRef<AttemptRow>("WebhookAttempt").implement({
  description: "One attempt at delivering a message: what the endpoint answered, and how fast.",
  fields: (t) => ({
    messageId: t.string({
      description: "The message's webhook-id (the same on every attempt).",
      resolve: (a) => a.messageId,
    }),
    attempt: t.int({ resolve: (a) => a.attempt }),
    at: t.field({ type: "DateTime", resolve: (a) => a.at }),
    httpStatus: t.int({ nullable: true, resolve: (a) => a.httpStatus }),
    error: t.string({ nullable: true, resolve: (a) => a.error }),
    latencyMs: t.int({ resolve: (a) => a.latencyMs }),
    result: t.string({
      description:
        "delivered (accepted, charged), retry (another attempt is queued), failed (no more attempts), refused (not sent: the balance, the token or the target).",
      resolve: (a) => a.result,
    }),
  }),
});

const EndpointRef = builder.objectRef<Endpoint>("WebhookEndpoint").implement({
  fields: (t) => ({
    id: t.id({ resolve: (e) => String(e.id) }),
    url: t.string({ resolve: (e) => e.url }),
    network: t.string({ resolve: (e) => e.network }),
    event: t.string({ resolve: (e) => e.event }),
    txid: t.string({ nullable: true, resolve: (e) => e.args.txid ?? null }),
    address: t.string({ nullable: true, resolve: (e) => e.args.address ?? null }),
    until: t.int({ nullable: true, resolve: (e) => e.args.until ?? null }),
    targets: t.intList({ nullable: true, resolve: (e) => e.args.targets ?? null }),
    description: t.string({ nullable: true, resolve: (e) => e.description }),
    tokenId: t.id({ resolve: (e) => String(e.tokenId) }),
    createdAt: t.field({ type: "DateTime", resolve: (e) => e.createdAt }),
    endedAt: t.field({ type: "DateTime", nullable: true, resolve: (e) => e.endedAt }),
    endedWhy: t.string({ nullable: true, resolve: (e) => e.endedWhy }),
    attempts: t.field({
      type: [AttemptRef],
      description: "Its latest delivery attempts, newest first. Free.",
      args: { limit: t.arg.int({ defaultValue: 20 }) },
      resolve: (e, { limit }, ctx) =>
        recentAttempts(ctx.services.db, e.id, Math.min(Math.max(limit ?? 20, 1), 200)),
    }),
  }),
});

const CreatedRef = builder
  .objectRef<{ endpoint: Endpoint; secret: string }>("CreatedWebhook")
  .implement({
    fields: (t) => ({
      endpoint: t.field({ type: EndpointRef, resolve: (c) => c.endpoint }),
      secret: t.string({
        description:
          "The signing secret (whsec_…), shown this once: verify each delivery's webhook-signature with it (Standard Webhooks).",
        resolve: (c) => c.secret,
      }),
    }),
  });

builder.objectField(AccountRef, "webhooks", (t) =>
  t.field({
    type: [EndpointRef],
    description: "The account's webhook endpoints, live ones first. Free.",
    resolve: (a, _args, ctx) => listEndpoints(ctx.services.db, a.id),
  }),
);

builder.mutationFields((t) => ({
  createWebhook: t.field({
    type: CreatedRef,
    description:
      "Registers an endpoint told of the route's network's events by signed POSTs (Standard Webhooks), as the subscription of the same name would deliver them; retried with growing delays for a day. Needs an unrestricted token; the endpoint acts for it (its revocation ends the endpoint). Free; each accepted delivery is charged pricing.events.<event>.",
    args: {
      url: t.arg.string({ required: true }),
      event: t.arg({ type: WebhookEventEnum, required: true }),
      network: t.arg.string({
        required: false,
        description: "The network it follows; the route's when omitted.",
      }),
      txid: t.arg({ type: "TxId", required: false }),
      address: t.arg.string({ required: false }),
      until: t.arg.int({ required: false }),
      targets: t.arg.intList({ required: false }),
      description: t.arg.string({ required: false }),
    },
    resolve: async (_root, args, ctx) => {
      manager(ctx, "webhooks");
      try {
        return await registerEndpoint(
          ctx.services.db,
          ctx.services.config,
          ctx.services.webhookTargets,
          ctx.owner,
          {
            url: args.url,
            network: args.network ?? ctx.network,
            event: args.event,
            args: {
              ...(args.txid ? { txid: args.txid } : {}),
              ...(args.address ? { address: args.address } : {}),
              ...(args.until != null ? { until: args.until } : {}),
              ...(args.targets ? { targets: args.targets } : {}),
            },
            description: args.description ?? null,
          },
        );
      } catch (err) {
        if (err instanceof Refused) throw codedError("INVALID_PARAMS", err.message);
        throw err;
      }
    },
  }),
  deleteWebhook: t.boolean({
    description: "Ends one of the account's endpoints: nothing more is sent to it. Free.",
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, { id }, ctx) => {
      const accountId = manager(ctx, "webhooks");
      const n = Number(id);
      if (
        !Number.isSafeInteger(n) ||
        !(await endEndpoint(ctx.services.db, n, "deleted", accountId))
      ) {
        throw codedError("NOT_FOUND", `no live webhook endpoint ${id} on this account`);
      }
      return true;
    },
  }),
}));
