// The dashboard in the browser: everything it shows comes from the unified GraphQL API through
// the generated, typed operations (schema/operations/dashboard.graphql). Bundled by esbuild.
import {
  DashboardCycleDocument,
  type DashboardCycleQuery,
  type DashboardCycleQueryVariables,
} from "../../../generated/operations.ts";
import { day, el, fmt, query, table } from "./dom.ts";
import { renderKeys } from "./keys.ts";
import { planPanel } from "./plan.ts";
import { renderTopups } from "./topups.ts";
import { usagePanel } from "./usage-panel.ts";
import { renderWebhooks } from "./webhooks.ts";

const calls = (n: number) => `${fmt(n)} call${n === 1 ? "" : "s"}`;

type Account = DashboardCycleQuery["account"];
type Cycle = NonNullable<Account["cycle"]>;

async function render(index: number | null): Promise<void> {
  const variables: DashboardCycleQueryVariables = { index, auditLimit: 50 };
  const { account } = await query(DashboardCycleDocument, variables);
  const cycle = account.cycle;
  const keys = el("section", { class: "panel wide", "data-testid": "keys" });
  const webhooks = el("section", { class: "panel wide", "data-testid": "webhooks" });
  const topups = el("section", { class: "panel wide", "data-testid": "topups" });
  const banner = el("div", { class: "banner-slot", "data-testid": "banner" });
  document
    .getElementById("app")!
    .replaceChildren(
      header(account.name),
      banner,
      cards(account),
      cycleChooser(account),
      ...(cycle ? cycleSections(cycle) : []),
      topups,
      keys,
      webhooks,
    );
  await Promise.all([renderKeys(keys), renderWebhooks(webhooks), renderTopups(topups, banner)]);
  document.body.dataset.loadedCycle = String(cycle?.index ?? "");
}

function header(name: string): HTMLElement {
  return el(
    "header",
    {},
    el("h1", {}, "blockgate"),
    el("span", { class: "account" }, name),
    el(
      "nav",
      { "aria-label": "Elsewhere on this gateway" },
      el("a", { href: "/dashboard/methods", "data-testid": "methods-link" }, "Methods and prices"),
    ),
    el(
      "form",
      { method: "post", action: "/dashboard/logout" },
      el("button", { type: "submit" }, "Sign out"),
    ),
  );
}

function card(title: string, ...content: HTMLElement[]): HTMLElement {
  return el("div", { class: "card" }, el("h2", {}, title), ...content);
}

function cards(account: Account): HTMLElement {
  const { cycle } = account;
  const refused = cycle?.refusedCalls ?? 0;
  return el(
    "section",
    { class: "cards" },
    card("Available", el("p", { "data-testid": "available" }, `${fmt(account.available)} CC`)),
    card("Balance", el("p", { "data-testid": "balance" }, `${fmt(account.balance)} CC`)),
    card(
      "This cycle",
      el(
        "p",
        { "data-testid": "cycle-charged" },
        `${fmt(cycle?.chargedCc ?? 0)} CC · ${calls((cycle?.calls ?? 0) - refused)}`,
      ),
      // Calls turned away before anything ran (bad input, unknown method, limits) are not billed:
      // shown apart, so they are not read as usage.
      el(
        "p",
        { class: "sub", "data-testid": "cycle-refused" },
        `${fmt(refused)} refused, not billed`,
      ),
    ),
    planPanel(account.plan),
  );
}

/** The billing cycles to choose from, and the chosen one's CSV exports. */
function cycleChooser(account: Account): HTMLElement {
  const { cycle } = account;
  const select = el("select", { id: "cycle", "data-testid": "cycle-select" });
  for (const c of account.cycles) {
    const label = `${day(c.start)} – ${day(c.end)} · ${fmt(c.chargedCc)} CC`;
    const option = el("option", { value: String(c.index) }, label);
    if (cycle && c.index === cycle.index) option.selected = true;
    select.append(option);
  }
  select.addEventListener("change", () => void render(Number(select.value)));
  const csv = (kind: string, text: string) =>
    el(
      "a",
      {
        class: "button",
        href: `/dashboard/export.csv?cycle=${cycle?.index ?? 0}&kind=${kind}`,
        download: "",
        "data-testid": `csv-${kind}`,
      },
      text,
    );
  return el(
    "section",
    { class: "panel chooser" },
    el(
      "label",
      { class: "field", for: "cycle" },
      el("span", { class: "label" }, "Billing cycle"),
      select,
    ),
    el("div", { class: "exports" }, csv("usage", "Usage CSV"), csv("audit", "Calls CSV (audit)")),
  );
}

function section(title: string, content: Element, wide = false): HTMLElement {
  return el("section", { class: wide ? "panel wide" : "panel" }, el("h2", {}, title), content);
}

function cycleSections(cycle: Cycle): HTMLElement[] {
  return [
    section("Usage over time", usagePanel(cycle), true),
    section(
      "By method and network",
      table(
        "usage-table",
        ["Backend", "Network", "Method", "Calls", "Refused", "CC"],
        cycle.usage.map((u) => [
          u.backend,
          u.network,
          u.method,
          u.calls - u.refusedCalls,
          u.refusedCalls,
          u.chargedCc,
        ]),
        undefined,
        "Usage by method and network",
      ),
    ),
    section(
      "By outcome",
      table(
        "outcome-table",
        ["Outcome", "HTTP", "Calls", "CC"],
        cycle.byOutcome.map((o) => [o.outcome, String(o.httpStatus), o.calls, o.chargedCc]),
        undefined,
        "Usage by outcome",
      ),
    ),
    section(
      "Latest calls",
      table(
        "audit-table",
        ["When (UTC)", "Backend", "Network", "Method", "Outcome", "CC", "Complexity", "ms"],
        cycle.auditRecords.map((r) => [
          r.at.replace("T", " ").slice(0, 19),
          r.backend,
          r.network,
          r.method,
          r.errorCode ? `${r.outcome} (${r.errorCode})` : r.outcome,
          r.chargedCc,
          r.complexity === null ? "" : String(r.complexity),
          r.durationMs === null ? "" : String(r.durationMs),
        ]),
        undefined,
        "Latest calls",
      ),
      true,
    ),
  ];
}

render(null).catch((err: unknown) => {
  document.getElementById("app")!.textContent =
    `Could not load the dashboard: ${(err as Error).message}`;
});
