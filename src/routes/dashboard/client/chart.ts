// Credits and calls per day of the cycle, drawn by uPlot (bundled, so no CDN) on a canvas sized to
// its box; the same figures sit in a table beside it for screen readers and exact reading.
import "./locale.ts";
import uPlot from "uplot";
import type { DashboardCycleQuery } from "../../../generated/operations.ts";
import { day, el, fmt } from "./dom.ts";

type Cycle = NonNullable<DashboardCycleQuery["account"]["cycle"]>;

const CREDITS = "#f7931a";
const CALLS = "#2f5fd0";
const REFUSED = "#c2410c";
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

interface Day {
  day: string;
  /** Every call, refused ones included. */
  calls: number | null;
  /** Of the calls, those refused before anything ran (never billed). */
  refused: number | null;
  chargedCc: number | null;
}

/** Every day of the cycle; days still to come have no figures (null), past days at least 0. */
export function cycleDays(cycle: Cycle, now = Date.now()): Day[] {
  const byDay = new Map(cycle.byDay.map((d) => [d.day, d]));
  const days: Day[] = [];
  const end = new Date(cycle.end).getTime();
  for (let t = Date.parse(day(cycle.start)); t < end; t += 86_400_000) {
    const d = new Date(t).toISOString().slice(0, 10);
    const usage = byDay.get(d);
    const past = t <= now;
    days.push({
      day: d,
      calls: usage?.calls ?? (past ? 0 : null),
      refused: usage?.refusedCalls ?? (past ? 0 : null),
      chargedCc: usage?.chargedCc ?? (past ? 0 : null),
    });
  }
  return days;
}

/** Splits at whole days only: a bar per day, a tick every 1, 2, 7 or 14 days as room allows. */
const dayAxis = (days: Day[]): uPlot.Axis => ({
  ...AXIS,
  size: 36,
  grid: { show: false },
  ticks: TICKS,
  incrs: [1, 2, 7, 14, 28],
  space: 44,
  values: (_u, splits) => splits.map((i) => days[i]?.day.slice(5) ?? ""),
});

const valueAxis = (scale: string, side: 1 | 3, grid: boolean): uPlot.Axis => ({
  ...AXIS,
  scale,
  side,
  grid: grid ? GRID : { show: false },
  ticks: TICKS,
  values: (_u, splits) => splits.map((v) => (Number.isInteger(v) ? compact(v) : "")),
});

function options(days: Day[], width: number): uPlot.Options {
  const bars = uPlot.paths.bars?.({ size: [0.7, 36], align: 0 });
  const shown = (v: number | null) => (v === null ? "–" : fmt(v));
  return {
    width,
    height: HEIGHT,
    padding: [12, 8, 0, 8],
    cursor: { points: { show: false }, drag: { x: false, y: false } },
    select: { show: false, left: 0, top: 0, width: 0, height: 0 },
    legend: { live: true },
    scales: {
      x: { time: false, range: [-0.6, days.length - 0.4] },
      cc: { range: (_u, _min, max) => [0, Math.max(10, max)] },
      calls: { range: (_u, _min, max) => [0, Math.max(5, max)] },
    },
    axes: [dayAxis(days), valueAxis("cc", 3, true), valueAxis("calls", 1, false)],
    series: [
      { label: "Day (UTC)", value: (_u, i) => (i === null ? "–" : (days[i]?.day ?? "–")) },
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
      {
        label: "Billed calls",
        scale: "calls",
        stroke: CALLS,
        width: 2,
        points: { show: true, size: 6, fill: CALLS },
        value: (_u, v) => shown(v),
      },
      {
        label: "Refused calls",
        scale: "calls",
        stroke: REFUSED,
        width: 2,
        dash: [6, 4],
        points: { show: true, size: 5, fill: REFUSED },
        value: (_u, v) => shown(v),
      },
    ],
  };
}

/** The figures as a table: what a screen reader reads, and exact values for anyone. */
function figures(days: Day[]): HTMLElement {
  const rows = days
    .filter((d) => d.calls !== null)
    .map((d) =>
      el(
        "tr",
        {
          "data-day": d.day,
          "data-cc": String(d.chargedCc),
          "data-calls": String(d.calls),
          "data-refused": String(d.refused),
        },
        el("td", {}, d.day),
        el("td", { class: "num" }, fmt(d.chargedCc ?? 0)),
        el("td", { class: "num" }, fmt((d.calls ?? 0) - (d.refused ?? 0))),
        el("td", { class: "num" }, fmt(d.refused ?? 0)),
      ),
    );
  const titles = ["Day (UTC)", "Credits (CC)", "Billed calls", "Refused"];
  const head = el("tr", {}, ...titles.map((h) => el("th", {}, h)));
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

/** The chart in a box it fills: drawn once it is in the page, redrawn as the box's width changes. */
export function chart(cycle: Cycle, note: HTMLElement): HTMLElement {
  const days = cycleDays(cycle);
  const plot = el("div", { class: "plot", "data-testid": "usage-plot" });
  const box = el(
    "figure",
    {
      class: "chart",
      "data-testid": "usage-chart",
      "aria-label": "Credits charged and calls per day (UTC) in this billing cycle",
    },
    el(
      "div",
      { class: "axis-titles", "aria-hidden": "true" },
      el("span", { class: "cc", "data-testid": "y-axis-title" }, "CC / day"),
      el("span", { class: "calls" }, "calls / day"),
    ),
    plot,
    el(
      "div",
      { class: "x-title", "aria-hidden": "true", "data-testid": "x-axis-title" },
      "day (UTC)",
    ),
    note,
    figures(days),
  );
  let drawn: uPlot | undefined;
  const draw = () => {
    const width = Math.max(200, Math.floor(plot.clientWidth));
    if (!drawn) {
      const data: uPlot.AlignedData = [
        days.map((_d, i) => i),
        days.map((d) => d.chargedCc),
        days.map((d) => (d.calls === null ? null : d.calls - (d.refused ?? 0))),
        days.map((d) => d.refused),
      ];
      drawn = new uPlot(options(days, width), data, plot);
    } else if (drawn.width !== width) drawn.setSize({ width, height: HEIGHT });
  };
  new ResizeObserver(() => {
    if (plot.isConnected && plot.clientWidth > 0) draw();
  }).observe(plot);
  return box;
}
