// The dashboard in the browser: everything it shows comes from the unified GraphQL API through
// the generated, typed operations (schema/operations/dashboard.graphql). Bundled by esbuild.
import {
  DashboardCycleDocument,
  type DashboardCycleQueryVariables,
} from "../../../generated/operations.ts";
import { chart } from "./chart.ts";
import { day, el, fmt, query, table } from "./dom.ts";
import { renderKeys } from "./keys.ts";
import { renderWebhooks } from "./webhooks.ts";

const calls = (n: number) => `${fmt(n)} call${n === 1 ? "" : "s"}`;

async function render(index: number | null): Promise<void> {
  const variables: DashboardCycleQueryVariables = { index, auditLimit: 50 };
  const { account } = await query(DashboardCycleDocument, variables);
  const cycle = account.cycle;
  const root = document.getElementById("app")!;
  const select = el("select", { id: "cycle", "data-testid": "cycle-select" });
  for (const c of account.cycles) {
    const option = el(
      "option",
      { value: String(c.index) },
      `${day(c.start)} – ${day(c.end)} · ${fmt(c.chargedCc)} CC`,
    );
    if (cycle && c.index === cycle.index) option.selected = true;
    select.append(option);
  }
  select.addEventListener("change", () => void render(Number(select.value)));
  const csv = (kind: string) =>
    el(
      "a",
      {
        href: `/dashboard/export.csv?cycle=${cycle?.index ?? 0}&kind=${kind}`,
        download: "",
        "data-testid": `csv-${kind}`,
      },
      `${kind} CSV`,
    );
  const refused = cycle?.refusedCalls ?? 0;
  const keys = el("section", { "data-testid": "keys" });
  const webhooks = el("section", { "data-testid": "webhooks" });
  root.replaceChildren(
    el(
      "header",
      {},
      el("h1", {}, "blockgate"),
      el("span", { class: "account" }, account.name),
      el(
        "form",
        { method: "post", action: "/dashboard/logout" },
        el("button", { type: "submit" }, "Sign out"),
      ),
    ),
    el(
      "section",
      { class: "cards" },
      el(
        "div",
        { class: "card" },
        el("h2", {}, "Available"),
        el("p", { "data-testid": "available" }, `${fmt(account.available)} CC`),
      ),
      el(
        "div",
        { class: "card" },
        el("h2", {}, "Balance"),
        el("p", { "data-testid": "balance" }, `${fmt(account.balance)} CC`),
      ),
      el(
        "div",
        { class: "card" },
        el("h2", {}, "This cycle"),
        el(
          "p",
          { "data-testid": "cycle-charged" },
          `${fmt(cycle?.chargedCc ?? 0)} CC · ${calls((cycle?.calls ?? 0) - refused)}`,
        ),
        // Calls turned away before anything ran (bad input, unknown method, limits) are not
        // billed: shown apart, so they are not read as usage.
        el(
          "p",
          { class: "sub", "data-testid": "cycle-refused" },
          `${fmt(refused)} refused, not billed`,
        ),
      ),
    ),
    el("section", {}, el("h2", {}, "Billing cycle "), select, " ", csv("usage"), " ", csv("audit")),
    ...(cycle
      ? [
          el("section", {}, el("h2", {}, "Credits per day"), chart(cycle)),
          el(
            "section",
            {},
            el("h2", {}, "By method and network"),
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
            ),
          ),
          el(
            "section",
            {},
            el("h2", {}, "By outcome"),
            table(
              "outcome-table",
              ["Outcome", "HTTP", "Calls", "CC"],
              cycle.byOutcome.map((o) => [o.outcome, String(o.httpStatus), o.calls, o.chargedCc]),
            ),
          ),
          el(
            "section",
            {},
            el("h2", {}, "Latest calls"),
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
            ),
          ),
        ]
      : []),
    keys,
    webhooks,
  );
  await Promise.all([renderKeys(keys), renderWebhooks(webhooks)]);
  document.body.dataset.loadedCycle = String(cycle?.index ?? "");
}

render(null).catch((err: unknown) => {
  document.getElementById("app")!.textContent =
    `Could not load the dashboard: ${(err as Error).message}`;
});
