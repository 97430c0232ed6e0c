// Credits per day as an SVG bar chart with labelled axes and values; no library.
import type { DashboardCycleQuery } from "../../../generated/operations.ts";
import { day, fmt } from "./dom.ts";

type Cycle = NonNullable<DashboardCycleQuery["account"]["cycle"]>;

const NS = "http://www.w3.org/2000/svg";
/** Room for the y axis's tick values and title, and the x axis's labels and title. */
const LEFT = 52;
const TOP = 14;
const PLOT = 110;
const BAR = 24;

/** 1234 → 1.2k, 3400000 → 3.4M: a value that fits over a 24-unit bar. */
export function compact(n: number): string {
  if (n < 1_000) return String(n);
  const [div, unit] =
    n < 1_000_000 ? [1_000, "k"] : n < 1_000_000_000 ? [1_000_000, "M"] : [1e9, "G"];
  const v = n / div;
  return `${v < 10 ? v.toFixed(1).replace(/\.0$/, "") : Math.round(v)}${unit}`;
}

function text(x: number, y: number, content: string, attrs: Record<string, string> = {}) {
  const t = document.createElementNS(NS, "text");
  t.setAttribute("x", String(x));
  t.setAttribute("y", String(y));
  for (const [k, v] of Object.entries(attrs)) t.setAttribute(k, v);
  t.textContent = content;
  return t;
}

function line(x1: number, y1: number, x2: number, y2: number, cls: string) {
  const l = document.createElementNS(NS, "line");
  for (const [k, v] of Object.entries({ x1, y1, x2, y2 })) l.setAttribute(k, String(v));
  l.setAttribute("class", cls);
  return l;
}

/** One bar per day of the cycle (up to today), its credits written over it. */
export function chart(cycle: Cycle): SVGSVGElement {
  const byDay = new Map(cycle.byDay.map((d) => [d.day, d]));
  const days: string[] = [];
  const last = Math.min(new Date(cycle.end).getTime() - 1, Date.now());
  for (let t = Date.parse(day(cycle.start)); t <= last; t += 86_400_000)
    days.push(new Date(t).toISOString().slice(0, 10));
  const max = Math.max(1, ...cycle.byDay.map((d) => d.chargedCc));
  const width = LEFT + Math.max(days.length, 1) * BAR + 8;
  const base = TOP + PLOT;
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("viewBox", `0 0 ${width} ${base + 34}`);
  svg.setAttribute("data-testid", "usage-chart");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", "Credits charged per day (UTC)");
  // The y axis: its title, and ticks at 0, half and the highest day.
  svg.append(
    text(10, TOP + PLOT / 2, "CC / day", {
      transform: `rotate(-90 10 ${TOP + PLOT / 2})`,
      "text-anchor": "middle",
      class: "axis-title",
      "data-testid": "y-axis-title",
    }),
    line(LEFT - 2, TOP, LEFT - 2, base, "axis"),
    line(LEFT - 2, base, width - 4, base, "axis"),
  );
  for (const v of [0, Math.round(max / 2), max]) {
    const y = base - Math.round((v / max) * PLOT);
    svg.append(
      text(LEFT - 6, y + 3, compact(v), {
        "text-anchor": "end",
        class: "tick",
        "data-tick": String(v),
      }),
      line(LEFT - 2, y, width - 4, y, "grid"),
    );
  }
  days.forEach((d, i) => {
    const usage = byDay.get(d);
    const cc = usage?.chargedCc ?? 0;
    const h = Math.round((cc / max) * PLOT);
    const x = LEFT + i * BAR + 4;
    const rect = document.createElementNS(NS, "rect");
    rect.setAttribute("x", String(x));
    rect.setAttribute("y", String(base - h));
    rect.setAttribute("width", "16");
    rect.setAttribute("height", String(Math.max(h, cc > 0 ? 1 : 0)));
    rect.setAttribute("data-day", d);
    rect.setAttribute("data-cc", String(cc));
    rect.setAttribute("data-calls", String(usage?.calls ?? 0));
    const title = document.createElementNS(NS, "title");
    title.textContent = `${d}: ${fmt(cc)} CC, ${fmt(usage?.calls ?? 0)} calls`;
    rect.append(title);
    svg.append(rect);
    if (cc > 0) {
      svg.append(
        text(x + 8, base - h - 3, compact(cc), { "text-anchor": "middle", class: "value" }),
      );
    }
    if (i % 7 === 0) svg.append(text(x, base + 12, d.slice(5), { class: "tick" }));
  });
  svg.append(
    text(LEFT + (width - LEFT) / 2, base + 30, "day (UTC)", {
      "text-anchor": "middle",
      class: "axis-title",
      "data-testid": "x-axis-title",
    }),
  );
  return svg;
}
