import pc from "picocolors";

/** How a cell reads at a glance: good (live, ok), bad (BAD, failed), dim (revoked, ended). */
export type Tone = "good" | "bad" | "dim";

export type Cell = string | number | { text: string; tone: Tone };

export interface Column {
  header: string;
  /** Numbers align right. */
  right?: boolean;
}

export interface Table {
  columns: Column[];
  rows: Cell[][];
  /** What is printed when there are no rows. */
  empty: string;
}

/**
 * What a terminal shows of a command's result: lines of text and tables, in order. Plain data,
 * so a gateway that ran the command can send it to the CLI, which renders it for its own terminal.
 */
export interface View {
  parts: (string | { table: Table })[];
}

/** Whether stdout gets colours: a terminal, NO_COLOR unset or empty (no-color.org), not TERM=dumb. */
export function wantsColour(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  return stream.isTTY === true && !env.NO_COLOR && env.TERM !== "dumb";
}

// What is printed must not steer the terminal: labels, URLs and webhook errors come from users
// and from remote servers. Their control characters are shown as \x1b and the like.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point
const CONTROL_BUT_LINES = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;
const escaped = (c: string) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`;
const visible = (s: string) => s.replace(CONTROL, escaped);

/** A command's text as printed: tabs and line ends (CSV's CRLF) kept, other controls shown. */
export const printable = (text: string): string => text.replace(CONTROL_BUT_LINES, escaped);

/** The view as aligned text: headers, two spaces between columns, colours when `colour`. */
export function renderView(view: View, colour: boolean): string {
  const c = pc.createColors(colour);
  const paint: Record<Tone, (s: string) => string> = { good: c.green, bad: c.red, dim: c.dim };
  return view.parts
    .map((part) => (typeof part === "string" ? visible(part) : renderTable(part.table, c, paint)))
    .join("\n");
}

function renderTable(
  table: Table,
  c: ReturnType<typeof pc.createColors>,
  paint: Record<Tone, (s: string) => string>,
): string {
  if (table.rows.length === 0) return c.dim(visible(table.empty));
  const texts = table.rows.map((row) =>
    row.map((cell) => visible(typeof cell === "object" ? cell.text : String(cell))),
  );
  const widths = table.columns.map((col, i) =>
    Math.max(col.header.length, ...texts.map((row) => row[i]?.length ?? 0)),
  );
  // Padding stays outside the colour, so a coloured cell is as wide as a plain one.
  const line = (cells: string[], tones: (Tone | undefined)[]) =>
    cells
      .map((s, i) => {
        const tone = tones[i];
        const shown = tone ? paint[tone](s) : s;
        const gap = " ".repeat(widths[i]! - s.length);
        if (table.columns[i]?.right) return gap + shown;
        return i === cells.length - 1 ? shown : shown + gap;
      })
      .join("  ");
  const header = c.bold(
    line(
      table.columns.map((col) => col.header),
      [],
    ),
  );
  const rows = table.rows.map((row, r) =>
    line(
      texts[r]!,
      row.map((cell) => (typeof cell === "object" ? cell.tone : undefined)),
    ),
  );
  return [header, ...rows].join("\n");
}

/** Whether `value`, as a gateway sent it, is a view this CLI can render. */
export function isView(value: unknown): value is View {
  if (typeof value !== "object" || value === null) return false;
  const parts = (value as { parts?: unknown }).parts;
  return (
    Array.isArray(parts) &&
    parts.every(
      (p) =>
        typeof p === "string" ||
        (typeof p === "object" &&
          p !== null &&
          Array.isArray((p as { table?: { columns?: unknown } }).table?.columns) &&
          Array.isArray((p as { table?: { rows?: unknown } }).table?.rows)),
    )
  );
}
