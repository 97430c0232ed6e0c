// "Usage over time": per day over the cycle or per hour over its last two days, for every network
// and method or one of each; each change asks the unified API for that timeline.
import {
  type DashboardCycleQuery,
  DashboardTimelineDocument,
} from "../../../generated/operations.ts";
import { usageCharts } from "./chart.ts";
import { el, fmt, labelled, query, uid } from "./dom.ts";
import { HOURS_SHOWN, type Size, slots } from "./slots.ts";

type Cycle = NonNullable<DashboardCycleQuery["account"]["cycle"]>;

interface Choice {
  size: Size;
  network: string | null;
  method: string | null;
}

function select(values: string[], all: string, testId: string): HTMLSelectElement {
  const s = el("select", { "data-testid": testId });
  s.append(el("option", { value: "" }, all));
  for (const v of values) s.append(el("option", { value: v }, v));
  return s;
}

/** Per day or per hour, as two radio buttons that read as one switch. */
function sizeSwitch(onChange: (size: Size) => void): HTMLElement {
  const name = uid("bucket");
  const option = (size: Size, text: string, checked: boolean) => {
    const input = el("input", {
      type: "radio",
      name,
      value: size,
      "data-testid": `bucket-${size}`,
    });
    input.checked = checked;
    input.addEventListener("change", () => input.checked && onChange(size));
    return el("label", { class: "seg" }, input, el("span", {}, text));
  };
  return el(
    "fieldset",
    { class: "switch" },
    el("legend", {}, "Show"),
    option("DAY", "Per day", true),
    option("HOUR", `Per hour (last ${HOURS_SHOWN} h)`, false),
  );
}

/** The cycle's calls, billed, refused and failed apart, under the charts. */
const totals = (cycle: Cycle) =>
  el(
    "p",
    { class: "note", "data-testid": "per-day-note" },
    `This cycle: ${fmt(cycle.calls - cycle.refusedCalls)} billed calls, ${fmt(
      cycle.refusedCalls,
    )} refused before anything ran (not billed).`,
  );

export function usagePanel(cycle: Cycle): HTMLElement {
  const choice: Choice = { size: "DAY", network: null, method: null };
  const charts = el("div", { class: "chart-area", "aria-live": "polite" });
  const networks = [...new Set(cycle.usage.map((u) => u.network))].sort();
  const methods = [...new Set(cycle.usage.map((u) => u.method))].sort();
  const network = select(networks, "All networks", "timeline-network");
  const method = select(methods, "All methods", "timeline-method");
  const fetchAndDraw = async () => {
    charts.setAttribute("aria-busy", "true");
    const { account } = await query(DashboardTimelineDocument, {
      index: cycle.index,
      bucket: choice.size,
      network: choice.network,
      method: choice.method,
    });
    const buckets = account.cycle?.timeline ?? [];
    charts.replaceChildren(usageCharts(slots(buckets, choice.size, cycle), choice.size));
    charts.removeAttribute("aria-busy");
    charts.dataset.shown = `${choice.size}:${choice.network ?? ""}:${choice.method ?? ""}`;
  };
  const draw = () =>
    fetchAndDraw().catch((err: unknown) => {
      charts.removeAttribute("aria-busy");
      charts.replaceChildren(
        el("p", { class: "error" }, `Could not load the usage: ${(err as Error).message}`),
      );
    });
  network.addEventListener("change", () => {
    choice.network = network.value || null;
    draw();
  });
  method.addEventListener("change", () => {
    choice.method = method.value || null;
    draw();
  });
  const controls = el(
    "div",
    { class: "controls" },
    sizeSwitch((size) => {
      choice.size = size;
      draw();
    }),
    labelled("Network", network),
    labelled("Method", method),
  );
  draw();
  return el("div", { class: "usage" }, controls, charts, totals(cycle));
}
