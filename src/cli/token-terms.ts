import { type TokenScope, tokenScopeSchema } from "../access/scope.ts";
import type { TokenRow } from "../access/tokens.ts";
import type { Table } from "./view.ts";

type ScopeValues = Partial<Record<keyof TokenScope, string | undefined>>;

/** A scope from the options given (null when none was), checked as the store checks it. */
export function scopeFrom(values: ScopeValues): { scope: TokenScope | null } | { problem: string } {
  const given: Record<string, string[]> = {};
  for (const key of ["backends", "networks", "methods", "origins", "ips"] as const) {
    const value = values[key];
    if (value !== undefined) given[key] = value.split(",").map((s) => s.trim());
  }
  if (Object.keys(given).length === 0) return { scope: null };
  const parsed = tokenScopeSchema.safeParse(given);
  if (parsed.success) return { scope: parsed.data };
  const issue = parsed.error.issues[0]!;
  return { problem: `--${issue.path.join(".")}: ${issue.message}` };
}

const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `90s`, `30m`, `24h`, `7d` → milliseconds; null when it is not one. */
export function durationMs(text: string): number | null {
  const m = /^(\d{1,6})([smhd])$/.exec(text);
  return m ? Number(m[1]) * UNITS[m[2]!]! : null;
}

/** An expiry: a duration from now (`30d`) or an ISO 8601 instant in the future. */
export function expiryFrom(text: string, now = Date.now()): Date | null {
  const ms = durationMs(text);
  if (ms !== null) return new Date(now + ms);
  if (!/^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2}))?$/.test(text)) return null;
  const at = new Date(text);
  return Number.isNaN(at.getTime()) || at.getTime() <= now ? null : at;
}

type State = { word: "live" | "expired" | "revoked"; at: Date | null };

function stateOf(t: TokenRow, now: Date): State {
  if (t.revokedAt) return { word: "revoked", at: t.revokedAt };
  if (t.expiresAt && t.expiresAt <= now) return { word: "expired", at: t.expiresAt };
  return { word: "live", at: t.expiresAt };
}

const stateText = (s: State) =>
  s.at === null ? s.word : `${s.word === "live" ? "live until" : s.word} ${s.at.toISOString()}`;

const scopeText = (t: TokenRow) =>
  t.scope
    ? Object.entries(t.scope)
        .map(([k, v]) => `${k}=${(v as string[]).join(",")}`)
        .join(" ")
    : "unrestricted";

/** One line of `token list`: id, hint, label, state, scope. */
export function tokenLine(t: TokenRow, now = new Date()): string {
  const state = stateText(stateOf(t, now));
  return `${t.id}\t${t.hint}\t${t.label ?? ""}\tissued ${t.createdAt.toISOString()}\t${state}\t${scopeText(t)}`;
}

/** A token as --json prints it: its state in a word, instants in ISO 8601, the scope as stored. */
export function tokenJson(t: TokenRow, now = new Date()) {
  return {
    id: t.id,
    hint: t.hint,
    label: t.label,
    issuedAt: t.createdAt.toISOString(),
    state: stateOf(t, now).word,
    expiresAt: t.expiresAt?.toISOString() ?? null,
    revokedAt: t.revokedAt?.toISOString() ?? null,
    scope: t.scope,
  };
}

/** `token list` on a terminal. */
export function tokenTable(rows: readonly TokenRow[], now = new Date()): Table {
  const short = (at: Date) => at.toISOString().replace(/\.\d{3}Z$/, "Z");
  return {
    columns: [
      { header: "id", right: true },
      { header: "hint" },
      { header: "label" },
      { header: "issued" },
      { header: "state" },
      { header: "scope" },
    ],
    rows: rows.map((t) => {
      const state = stateOf(t, now);
      const words =
        state.at === null
          ? state.word
          : `${state.word === "live" ? "live until" : state.word} ${short(state.at)}`;
      return [
        t.id,
        t.hint,
        t.label ?? "",
        short(t.createdAt),
        { text: words, tone: state.word === "live" ? ("good" as const) : ("dim" as const) },
        scopeText(t),
      ];
    }),
    empty: "no tokens",
  };
}
