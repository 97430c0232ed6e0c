import { findAccount } from "../../../billing/ledger/accounts.ts";
import { type Cycle, cycleAt, cycleContaining } from "../../../billing/usage/cycles.ts";
import { usageTimeline } from "../../../billing/usage/timeline.ts";
import {
  type AuditRow,
  auditInRange,
  type DayUsage,
  latestAudit,
  type OutcomeUsage,
  REFUSED_OUTCOMES,
  type UsageRow as UsageModel,
  usageByDay,
  usageByMethod,
  usageByOutcome,
} from "../../../billing/usage/usage.ts";
import { builder } from "../builder.ts";
import { BucketSizeEnum, UsageBucketRef } from "./usage-timeline.ts";

interface AccountModel {
  id: number;
  name: string;
  createdAt: Date;
  balance: number;
  held: number;
  plan: string | null;
}

interface CycleModel extends Cycle {
  accountId: number;
}

export const AuditRecordRef = builder.objectRef<AuditRow>("AuditRecord").implement({
  description: "One call as the audit log keeps it.",
  fields: (t) => ({
    id: t.id({ resolve: (r) => String(r.id) }),
    at: t.field({ type: "DateTime", resolve: (r) => r.at }),
    backend: t.string({ resolve: (r) => r.backend }),
    network: t.string({ resolve: (r) => r.network }),
    method: t.string({ resolve: (r) => r.method }),
    outcome: t.string({ resolve: (r) => r.outcome }),
    errorCode: t.string({ nullable: true, resolve: (r) => r.error_code }),
    httpStatus: t.int({ resolve: (r) => r.http_status }),
    estimatedCc: t.field({ type: "Credits", resolve: (r) => r.estimated_cc }),
    chargedCc: t.field({ type: "Credits", resolve: (r) => r.charged_cc }),
    complexity: t.int({
      nullable: true,
      description: "Graph queries' complexity score.",
      resolve: (r) => r.complexity,
    }),
    durationMs: t.int({ nullable: true, resolve: (r) => r.duration_ms }),
  }),
});

const UsageRow = builder.objectRef<UsageModel>("UsageRow").implement({
  fields: (t) => ({
    backend: t.string({ resolve: (r) => r.backend }),
    network: t.string({ resolve: (r) => r.network }),
    method: t.string({ resolve: (r) => r.method }),
    calls: t.int({ description: "Every call, refused ones included.", resolve: (r) => r.calls }),
    refusedCalls: t.int({
      description:
        "Of the calls, those refused before anything ran (bad input, unknown method, scope, limits, credits): never charged.",
      resolve: (r) => r.refused,
    }),
    chargedCc: t.field({ type: "Credits", resolve: (r) => r.charged }),
  }),
});

const DayUsageRef = builder.objectRef<DayUsage>("DayUsage").implement({
  fields: (t) => ({
    day: t.string({ description: "YYYY-MM-DD, UTC.", resolve: (d) => d.day }),
    calls: t.int({ description: "Every call, refused ones included.", resolve: (d) => d.calls }),
    refusedCalls: t.int({
      description: "Of the calls, those refused before anything ran: never charged.",
      resolve: (d) => d.refused,
    }),
    chargedCc: t.field({ type: "Credits", resolve: (d) => d.charged }),
  }),
});

const OutcomeUsageRef = builder.objectRef<OutcomeUsage>("OutcomeUsage").implement({
  fields: (t) => ({
    outcome: t.string({ resolve: (o) => o.outcome }),
    httpStatus: t.int({ resolve: (o) => o.httpStatus }),
    calls: t.int({ resolve: (o) => o.calls }),
    chargedCc: t.field({ type: "Credits", resolve: (o) => o.charged }),
  }),
});

export const CycleRef = builder.objectRef<CycleModel>("BillingCycle").implement({
  description:
    "A billing cycle (monthly from the account's creation by default; config billing.cycle).",
  fields: (t) => ({
    index: t.int({ description: "0 for the account's first cycle.", resolve: (c) => c.index }),
    start: t.field({ type: "DateTime", resolve: (c) => c.start }),
    end: t.field({ type: "DateTime", description: "Exclusive.", resolve: (c) => c.end }),
    calls: t.int({
      resolve: async (c, _a, ctx) =>
        (await usageByDay(ctx.services.db, c.accountId, c)).reduce((n, d) => n + d.calls, 0),
    }),
    refusedCalls: t.int({
      description: "Of the calls, those refused before anything ran: shown apart from billed ones.",
      resolve: async (c, _a, ctx) =>
        (await usageByOutcome(ctx.services.db, c.accountId, c))
          .filter((o) => (REFUSED_OUTCOMES as readonly string[]).includes(o.outcome))
          .reduce((n, o) => n + o.calls, 0),
    }),
    chargedCc: t.field({
      type: "Credits",
      resolve: async (c, _a, ctx) =>
        (await usageByDay(ctx.services.db, c.accountId, c)).reduce((n, d) => n + d.charged, 0),
    }),
    usage: t.field({
      type: [UsageRow],
      description: "Calls and credits by backend, network and method, from the audit log.",
      resolve: (c, _args, ctx) => usageByMethod(ctx.services.db, c.accountId, c),
    }),
    byDay: t.field({
      type: [DayUsageRef],
      description: "Calls and credits per UTC day (days without calls are absent).",
      resolve: (c, _args, ctx) => usageByDay(ctx.services.db, c.accountId, c),
    }),
    timeline: t.field({
      type: [UsageBucketRef],
      description:
        "Calls, credits, failures and latency per hour or UTC day of the cycle, of one network and method if given.",
      args: {
        bucket: t.arg({ type: BucketSizeEnum, defaultValue: "day" }),
        network: t.arg.string(),
        method: t.arg.string(),
      },
      resolve: (c, { bucket, network, method }, ctx) =>
        usageTimeline(ctx.services.db, c.accountId, c, {
          bucket: bucket ?? "day",
          network,
          method,
        }),
    }),
    byOutcome: t.field({
      type: [OutcomeUsageRef],
      description: "Calls and credits by outcome and HTTP status.",
      resolve: (c, _args, ctx) => usageByOutcome(ctx.services.db, c.accountId, c),
    }),
    auditRecords: t.field({
      type: [AuditRecordRef],
      description: "The cycle's audit records, newest first.",
      args: { limit: t.arg.int({ defaultValue: 50 }) },
      resolve: (c, { limit }, ctx) =>
        auditInRange(ctx.services.db, c.accountId, c, Math.max(1, Math.min(limit ?? 50, 1000))),
    }),
  }),
});

export const AccountRef = builder.objectRef<AccountModel>("Account").implement({
  description: "The account that owns the token in the route.",
  fields: (t) => ({
    name: t.string({ resolve: (a) => a.name }),
    createdAt: t.field({ type: "DateTime", resolve: (a) => a.createdAt }),
    balance: t.field({
      type: "Credits",
      description: "Granted − charged.",
      resolve: (a) => a.balance,
    }),
    held: t.field({
      type: "Credits",
      description: "Reserved by calls in flight.",
      resolve: (a) => a.held,
    }),
    available: t.field({
      type: "Credits",
      description: "What the next call can spend.",
      resolve: (a) => a.balance - a.held,
    }),
    cycle: t.field({
      type: CycleRef,
      nullable: true,
      description: "A billing cycle by index; the current one by default. Null for one not begun.",
      args: { index: t.arg.int() },
      resolve: (a, { index }, ctx) => {
        const rule = ctx.services.config.billing.cycle;
        const current = cycleContaining(a.createdAt, new Date(), rule);
        if (index === null || index === undefined) return { ...current, accountId: a.id };
        if (index < 0 || index > current.index) return null;
        return { ...cycleAt(a.createdAt, index, rule), accountId: a.id };
      },
    }),
    cycles: t.field({
      type: [CycleRef],
      description: "Cycles so far, newest first.",
      args: { last: t.arg.int({ defaultValue: 12 }) },
      resolve: (a, { last }, ctx) => {
        const rule = ctx.services.config.billing.cycle;
        const current = cycleContaining(a.createdAt, new Date(), rule).index;
        const count = Math.max(0, Math.min(last ?? 12, 120, current + 1));
        return Array.from({ length: count }, (_, i) => ({
          ...cycleAt(a.createdAt, current - i, rule),
          accountId: a.id,
        }));
      },
    }),
    auditRecords: t.field({
      type: [AuditRecordRef],
      description: "The latest audit records, newest first.",
      args: { limit: t.arg.int({ defaultValue: 20 }) },
      resolve: (a, { limit }, ctx) =>
        latestAudit(ctx.services.db, a.id, Math.max(1, Math.min(limit ?? 20, 500))),
    }),
  }),
});

builder.queryFields((t) => ({
  account: t.field({
    type: AccountRef,
    description: "Your account: balance, billing cycles and usage, latest calls. Free.",
    resolve: async (_root, _args, ctx) => {
      const account = await findAccount(ctx.services.db, ctx.owner.accountId);
      if (!account) throw new Error("token owner vanished");
      return account;
    },
  }),
}));
