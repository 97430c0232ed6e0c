import type { Config } from "../config/schema.ts";

/** A plan as config gives it (`plans.<name>`): every limit optional; absent means none. */
export type Plan = Config["plans"][string];

/**
 * The plan an account is on: its own (`accounts.plan`, set by `blockgate account plan`), else the
 * configured default. An account whose plan was removed from config falls back to the default,
 * so a config edit can never leave an account unlimited by accident.
 */
export function planOf(
  config: Config,
  accountPlan: string | null,
): { name: string; plan: Plan } | null {
  if (accountPlan !== null) {
    const plan = config.plans[accountPlan];
    if (plan) return { name: accountPlan, plan };
  }
  const fallback = config.limits.defaultPlan;
  if (fallback === null) return null;
  const plan = config.plans[fallback];
  return plan ? { name: fallback, plan } : null;
}

/** Whether any plan limits anything: with none, the limits phase costs nothing per call. */
export function plansInForce(config: Config): boolean {
  return Object.keys(config.plans).length > 0;
}
