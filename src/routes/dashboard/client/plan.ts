// The account's plan beside its use: each credit cap as a meter, the rates and calls in flight
// the gateway holds its calls to.
import type { DashboardCycleQuery } from "../../../generated/operations.ts";
import { el, fmt } from "./dom.ts";

type Plan = NonNullable<DashboardCycleQuery["account"]["plan"]>;
type Cap = NonNullable<Plan["creditsPerDay"]>;

const when = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

function capMeter(title: string, cap: Cap, testId: string): HTMLElement {
  const used = Math.min(1, cap.spentCc / cap.capCc);
  const meter = el("meter", {
    min: "0",
    max: String(cap.capCc),
    low: String(cap.capCc * 0.75),
    high: String(cap.capCc * 0.9),
    optimum: "0",
    value: String(cap.spentCc),
    "aria-label": `${title}: ${fmt(cap.spentCc)} of ${fmt(cap.capCc)} CC`,
  });
  return el(
    "div",
    { class: "cap", "data-testid": testId },
    el(
      "div",
      { class: "cap-head" },
      el("span", {}, title),
      el("span", {}, `${Math.round(used * 100)} %`),
    ),
    meter,
    el(
      "p",
      { class: "sub" },
      `${fmt(cap.spentCc)} of ${fmt(cap.capCc)} CC · resets ${when(cap.resetsAt)}`,
    ),
  );
}

function rates(plan: Plan): string[] {
  const out: string[] = [];
  const rate = (r: Plan["tokenRate"], per: string) => {
    if (r)
      out.push(
        `${fmt(r.requestsPerSecond)} requests/s per ${per}${r.burst ? `, burst ${fmt(r.burst)}` : ""}`,
      );
  };
  rate(plan.tokenRate, "key");
  rate(plan.accountRate, "account");
  if (plan.concurrentCalls !== null) out.push(`${fmt(plan.concurrentCalls)} calls in flight`);
  return out;
}

/** The plan's card; an account on no plan is told that only its credits limit it. */
export function planPanel(plan: Plan | null): HTMLElement {
  const body: HTMLElement[] = [];
  if (!plan) {
    body.push(el("p", { class: "sub" }, "No plan limits: calls are limited only by your credits."));
  } else {
    if (plan.creditsPerDay) body.push(capMeter("Credits today", plan.creditsPerDay, "cap-day"));
    if (plan.creditsPerCycle) {
      body.push(capMeter("Credits this cycle", plan.creditsPerCycle, "cap-cycle"));
    }
    const limits = rates(plan);
    if (limits.length > 0)
      body.push(el("ul", { class: "limits" }, ...limits.map((l) => el("li", {}, l))));
    if (body.length === 0) body.push(el("p", { class: "sub" }, "This plan sets no limits."));
  }
  const title = plan ? `Plan: ${plan.name}` : "Plan";
  return el("div", { class: "card plan", "data-testid": "plan" }, el("h2", {}, title), ...body);
}
