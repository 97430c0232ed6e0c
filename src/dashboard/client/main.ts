// The dashboard in the browser: everything it shows comes from the unified GraphQL API through
// the generated, typed DashboardCycle operation. Bundled by esbuild when the gateway starts.
import type { TypedDocumentNode } from "@graphql-typed-document-node/core";
import { print } from "graphql";
import {
  DashboardCycleDocument,
  type DashboardCycleQuery,
  type DashboardCycleQueryVariables,
} from "../../generated/operations.ts";

type Cycle = NonNullable<DashboardCycleQuery["account"]["cycle"]>;

async function query<R, V>(document: TypedDocumentNode<R, V>, variables: V): Promise<R> {
  const res = await fetch("/dashboard/graphql", {
    method: "POST",
    credentials: "same-origin",
    headers: { "content-type": "application/json", accept: "application/graphql-response+json" },
    body: JSON.stringify({ query: print(document), variables }),
  });
  if (res.status === 401) {
    location.assign("/dashboard");
    throw new Error("signed out");
  }
  const body = (await res.json()) as { data?: R; errors?: { message: string }[] };
  if (!body.data) throw new Error(body.errors?.[0]?.message ?? `HTTP ${res.status}`);
  return body.data;
}

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  node.append(...children);
  return node;
}

const fmt = (n: number) => n.toLocaleString("en-US");
const day = (iso: string) => iso.slice(0, 10);

function table(testId: string, head: string[], rows: (string | number)[][]): HTMLTableElement {
  return el(
    "table",
    { "data-testid": testId },
    el("thead", {}, el("tr", {}, ...head.map((h) => el("th", {}, h)))),
    el(
      "tbody",
      {},
      ...(rows.length === 0
        ? [
            el(
              "tr",
              {},
              el("td", { colspan: String(head.length), class: "empty" }, "No calls in this cycle"),
            ),
          ]
        : rows.map((r) =>
            el(
              "tr",
              {},
              ...r.map((c) =>
                el(
                  "td",
                  typeof c === "number" ? { class: "num" } : {},
                  typeof c === "number" ? fmt(c) : c,
                ),
              ),
            ),
          )),
    ),
  );
}

/** One bar per day of the cycle (up to today), height by credits charged; SVG, no library. */
function chart(cycle: Cycle): SVGSVGElement {
  const ns = "http://www.w3.org/2000/svg";
  const byDay = new Map(cycle.byDay.map((d) => [d.day, d]));
  const days: string[] = [];
  const last = Math.min(new Date(cycle.end).getTime() - 1, Date.now());
  for (let t = Date.parse(day(cycle.start)); t <= last; t += 86_400_000)
    days.push(new Date(t).toISOString().slice(0, 10));
  const max = Math.max(1, ...cycle.byDay.map((d) => d.chargedCc));
  const width = Math.max(days.length, 1) * 24;
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", `0 0 ${width} 140`);
  svg.setAttribute("data-testid", "usage-chart");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", "Credits charged per day");
  days.forEach((d, i) => {
    const usage = byDay.get(d);
    const cc = usage?.chargedCc ?? 0;
    const h = Math.round((cc / max) * 110);
    const rect = document.createElementNS(ns, "rect");
    rect.setAttribute("x", String(i * 24 + 4));
    rect.setAttribute("y", String(120 - h));
    rect.setAttribute("width", "16");
    rect.setAttribute("height", String(Math.max(h, cc > 0 ? 1 : 0)));
    rect.setAttribute("data-day", d);
    rect.setAttribute("data-cc", String(cc));
    rect.setAttribute("data-calls", String(usage?.calls ?? 0));
    const title = document.createElementNS(ns, "title");
    title.textContent = `${d}: ${fmt(cc)} CC, ${fmt(usage?.calls ?? 0)} calls`;
    rect.append(title);
    svg.append(rect);
    if (i % 7 === 0) {
      const label = document.createElementNS(ns, "text");
      label.setAttribute("x", String(i * 24 + 4));
      label.setAttribute("y", "136");
      label.textContent = d.slice(5);
      svg.append(label);
    }
  });
  return svg;
}

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
          `${fmt(cycle?.chargedCc ?? 0)} CC · ${fmt(cycle?.calls ?? 0)} calls`,
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
              ["Backend", "Network", "Method", "Calls", "CC"],
              cycle.usage.map((u) => [u.backend, u.network, u.method, u.calls, u.chargedCc]),
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
  );
  document.body.dataset.loadedCycle = String(cycle?.index ?? "");
}

render(null).catch((err: unknown) => {
  document.getElementById("app")!.textContent =
    `Could not load the dashboard: ${(err as Error).message}`;
});
