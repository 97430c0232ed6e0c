import { cycleContaining } from "../../../billing/usage/cycles.ts";
import { chargedSince } from "../../../billing/usage/usage.ts";
import type { Config } from "../../../config/schema.ts";
import { planOf } from "../../../limits/plans.ts";
import { type CapWindow, dayWindow } from "../../../limits/spending-caps.ts";
import { builder } from "../builder.ts";
import { AccountRef } from "./account.ts";

interface RateModel {
  requestsPerSecond: number;
  burst: number;
}

interface CapModel extends CapWindow {
  accountId: number;
}

interface PlanModel {
  name: string;
  accountId: number;
  token: RateModel | null;
  account: RateModel | null;
  concurrentCalls: number | null;
  day: CapWindow | null;
  cycle: CapWindow | null;
}

const RateRef = builder.objectRef<RateModel>("PlanRate").implement({
  fields: (t) => ({
    requestsPerSecond: t.int({ resolve: (r) => r.requestsPerSecond }),
    burst: t.int({
      description: "Requests allowed above the rate once per burst window.",
      resolve: (r) => r.burst,
    }),
  }),
});

const CapRef = builder.objectRef<CapModel>("PlanCap").implement({
  description: "A credit cap and what the account has spent against it in the current window.",
  fields: (t) => ({
    capCc: t.field({ type: "Credits", resolve: (c) => c.cap }),
    spentCc: t.field({
      type: "Credits",
      resolve: (c, _a, ctx) => chargedSince(ctx.services.db, c.accountId, c.start),
    }),
    windowStart: t.field({ type: "DateTime", resolve: (c) => c.start }),
    resetsAt: t.field({ type: "DateTime", resolve: (c) => c.end }),
  }),
});

const PlanRef = builder.objectRef<PlanModel>("Plan").implement({
  description: "The limits the account's calls are held to (config `plans`); absent ones: none.",
  fields: (t) => ({
    name: t.string({ resolve: (p) => p.name }),
    tokenRate: t.field({ type: RateRef, nullable: true, resolve: (p) => p.token }),
    accountRate: t.field({ type: RateRef, nullable: true, resolve: (p) => p.account }),
    concurrentCalls: t.int({ nullable: true, resolve: (p) => p.concurrentCalls }),
    creditsPerDay: t.field({
      type: CapRef,
      nullable: true,
      description: "Credits per UTC day.",
      resolve: (p) => (p.day ? { ...p.day, accountId: p.accountId } : null),
    }),
    creditsPerCycle: t.field({
      type: CapRef,
      nullable: true,
      description: "Credits per billing cycle.",
      resolve: (p) => (p.cycle ? { ...p.cycle, accountId: p.accountId } : null),
    }),
  }),
});

/** The account's plan as it stands now: its rates, and each cap's current window. */
function planModel(
  config: Config,
  account: { id: number; createdAt: Date; plan: string | null },
  now: Date,
): PlanModel | null {
  const chosen = planOf(config, account.plan);
  if (!chosen) return null;
  const { name, plan } = chosen;
  const cycle = cycleContaining(account.createdAt, now, config.billing.cycle);
  const cycleCap = (cap: number): CapWindow => ({
    kind: "cycle",
    cap,
    start: cycle.start,
    end: cycle.end,
  });
  return {
    name,
    accountId: account.id,
    token: plan.token ?? null,
    account: plan.account ?? null,
    concurrentCalls: plan.concurrentCalls ?? null,
    day: plan.creditsPerDay === undefined ? null : dayWindow(now, plan.creditsPerDay),
    cycle: plan.creditsPerCycle === undefined ? null : cycleCap(plan.creditsPerCycle),
  };
}

builder.objectField(AccountRef, "plan", (t) =>
  t.field({
    type: PlanRef,
    nullable: true,
    description: "The plan the account is on, with its caps against use; null: no plan limits.",
    resolve: (a, _args, ctx) => planModel(ctx.services.config, a, new Date()),
  }),
);
