// Usage over time, drawn by uPlot (bundled, so no CDN) on canvases sized to their boxes: credits
// and calls in one chart, latency in another; the same figures sit in a table for screen readers
// and exact reading.
import "./locale.ts";
import uPlot from "uplot";
import { el, fmt } from "./dom.ts";
import type { Size, Slot } from "./slots.ts";

const CREDITS = "#f7931a";
const CALLS = "#2f5fd0";
const REFUSED = "#c2410c";
const FAILED = "#b91c1c";
const LATENCY = ["#0f766e", "#7c3aed", "#be185d"] as const;
const HEIGHT = 240;
const AXIS = { stroke: "#5a6275", font: "12px system-ui, sans-serif", size: 48 };
const GRID = { stroke: "#eceef2", width: 1 };
const TICKS = { stroke: "#c9ced8", width: 1, size: 4 };

/** 1234 → 1.2k, 3400000 → 3.4M: a tick value that fits beside the axis. */
export function compact(n: number): string {
  if (n < 1_000) return String(n);
  const [div, unit] =
    n < 1_000_000 ? [1_000, "k"] : n < 1_000_000_000 ? [1_000_000, "M"] : [1e9, "G"];
  const v = n / div;
  return `${v < 10 ? v.toFixed(1).replace(/\.0$/, "") : Math.round(v)}${unit}`;
}

/** Ticks at whole slots only: every 1, 2, 6, 12 … as room allows; days as MM-DD, hours as HH:00. */
const slotAxis = (slots: Slot[], size: Size): uPlot.Axis => ({
  ...AXIS,
  size: 36,
  grid: { show: false },
  ticks: TICKS,
  incrs: size === "DAY" ? [1, 2, 7, 14, 28] : [1, 2, 3, 6, 12, 24],
  space: 44,
  values: (_u, splits) =>
    splits.map((i) => {
      const l = slots[i]?.label ?? "";
      return size === "DAY" ? l.slice(5) : l.slice(11);
    }),
});

const valueAxis = (scale: string, side: 1 | 3, grid: boolean): uPlot.Axis => ({
  ...AXIS,
  scale,
  side,
  grid: grid ? GRID : { show: false },
  ticks: TICKS,
  values: (_u, splits) => splits.map((v) => (Number.isInteger(v) ? compact(v) : "")),
});

const shown = (v: number | null) => (v === null ? "–" : fmt(v));

function line(label: string, scale: string, stroke: string, dash?: number[]): uPlot.Series {
  return {
    label,
    scale,
    stroke,
    width: 2,
    ...(dash ? { dash } : {}),
    points: { show: true, size: 5, fill: stroke },
    value: (_u, v) => shown(v),
  };
}

function base(slots: Slot[], size: Size, width: number): uPlot.Options {
  return {
    width,
    height: HEIGHT,
    padding: [12, 8, 0, 8],
    cursor: { points: { show: false }, drag: { x: false, y: false } },
    select: { show: false, left: 0, top: 0, width: 0, height: 0 },
    legend: { live: true },
    scales: { x: { time: false, range: [-0.6, slots.length - 0.4] } },
    axes: [slotAxis(slots, size)],
    series: [
      {
        label: size === "DAY" ? "Day (UTC)" : "Hour (UTC)",
        value: (_u, i) => (i === null ? "–" : (slots[i]?.label ?? "–")),
      },
    ],
  };
}

function usageOptions(slots: Slot[], size: Size, width: number): uPlot.Options {
  const opts = base(slots, size, width);
  const bars = uPlot.paths.bars?.({ size: [0.7, 36], align: 0 });
  opts.scales = {
    ...opts.scales,
    cc: { range: (_u, _min, max) => [0, Math.max(10, max)] },
    calls: { range: (_u, _min, max) => [0, Math.max(5, max)] },
  };
  opts.axes = [...(opts.axes ?? []), valueAxis("cc", 3, true), valueAxis("calls", 1, false)];
  opts.series.push(
    {
      label: "Credits (CC)",
      scale: "cc",
      stroke: CREDITS,
      fill: `${CREDITS}cc`,
      width: 0,
      ...(bars ? { paths: bars } : {}),
      points: { show: false },
      value: (_u, v) => shown(v),
    },
    line("Billed calls", "calls", CALLS),
    line("Refused", "calls", REFUSED, [6, 4]),
    line("Failed", "calls", FAILED, [2, 3]),
  );
  return opts;
}

function latencyOptions(slots: Slot[], size: Size, width: number): uPlot.Options {
  const opts = base(slots, size, width);
  opts.scales = { ...opts.scales, ms: { range: (_u, _min, max) => [0, Math.max(10, max)] } };
  opts.axes = [...(opts.axes ?? []), valueAxis("ms", 3, true)];
  opts.series.push(
    line("p50 ms", "ms", LATENCY[0]),
    line("p95 ms", "ms", LATENCY[1], [6, 4]),
    line("p99 ms", "ms", LATENCY[2], [2, 3]),
  );
  return opts;
}

/** A plot that fills its box: drawn once it is in the page, redrawn as the box's width changes. */
function plotIn(
  box: HTMLElement,
  options: (width: number) => uPlot.Options,
  data: uPlot.AlignedData,
): void {
  let drawn: uPlot | undefined;
  const draw = () => {
    const width = Math.max(200, Math.floor(box.clientWidth));
    if (!drawn) drawn = new uPlot(options(width), data, box);
    else if (drawn.width !== width) drawn.setSize({ width, height: HEIGHT });
  };
  new ResizeObserver(() => {
    if (box.isConnected && box.clientWidth > 0) draw();
  }).observe(box);
}

const billed = (s: Slot) => (s.calls === null ? null : s.calls - (s.refused ?? 0));

/** The figures as a table: what a screen reader reads, and exact values for anyone. */
function figures(slots: Slot[], size: Size): HTMLElement {
  const rows = slots
    .filter((s) => s.calls !== null && (size === "DAY" || (s.calls ?? 0) > 0))
    .map((s) =>
      el(
        "tr",
        {
          [size === "DAY" ? "data-day" : "data-hour"]: s.label,
          "data-cc": String(s.chargedCc),
          "data-calls": String(s.calls),
          "data-refused": String(s.refused),
          "data-failed": String(s.failed),
        },
        el("td", {}, s.label),
        ...[s.chargedCc, billed(s), s.refused, s.failed, s.p50, s.p95, s.p99].map((v) =>
          el("td", { class: "num" }, v === null ? "–" : fmt(v)),
        ),
      ),
    );
  const titles = [size === "DAY" ? "Day (UTC)" : "Hour (UTC)", "CC", "Billed", "Refused", "Failed"];
  const head = el(
    "tr",
    {},
    ...[...titles, "p50 ms", "p95 ms", "p99 ms"].map((h) => el("th", {}, h)),
  );
  return el(
    "details",
    { class: "figures" },
    el("summary", {}, "Show the figures as a table"),
    el(
      "div",
      { class: "scroll" },
      el("table", {}, el("thead", {}, head), el("tbody", {}, ...rows)),
    ),
  );
}

function titled(cls: string, left: string, right: string | null, plot: HTMLElement, x: string) {
  return [
    el(
      "div",
      { class: `axis-titles ${cls}`, "aria-hidden": "true" },
      el("span", { class: "left", "data-testid": `${cls}-y-title` }, left),
      el("span", { class: "right" }, right ?? ""),
    ),
    plot,
    el("div", { class: "x-title", "aria-hidden": "true", "data-testid": `${cls}-x-title` }, x),
  ];
}

/** Both charts and the table, for the slots of one span at one bucket size. */
export function usageCharts(slots: Slot[], size: Size): HTMLElement {
  const per = size === "DAY" ? "day" : "hour";
  const usage = el("div", { class: "plot", "data-testid": "usage-plot" });
  const latency = el("div", { class: "plot", "data-testid": "latency-plot" });
  const x = `${per} (UTC)`;
  plotIn(usage, (w) => usageOptions(slots, size, w), [
    slots.map((_s, i) => i),
    slots.map((s) => s.chargedCc),
    slots.map(billed),
    slots.map((s) => s.refused),
    slots.map((s) => s.failed),
  ]);
  plotIn(latency, (w) => latencyOptions(slots, size, w), [
    slots.map((_s, i) => i),
    slots.map((s) => s.p50),
    slots.map((s) => s.p95),
    slots.map((s) => s.p99),
  ]);
  return el(
    "div",
    { class: "charts" },
    el(
      "figure",
      {
        class: "chart",
        "data-testid": "usage-chart",
        "aria-label": `Credits charged and calls per ${per} (UTC)`,
      },
      ...titled("usage", `CC / ${per}`, `calls / ${per}`, usage, x),
    ),
    el(
      "figure",
      {
        class: "chart",
        "data-testid": "latency-chart",
        "aria-label": `Latency percentiles of the calls that ran, per ${per} (UTC)`,
      },
      ...titled("latency", "latency (ms)", null, latency, x),
    ),
    figures(slots, size),
  );
}
