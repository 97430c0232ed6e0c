import { type TokenScope, tokenScopeSchema } from "../access/scope.ts";
import type { TokenRow } from "../access/tokens.ts";

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

/** One line of `token list`: id, hint, label, state, scope. */
export function tokenLine(t: TokenRow, now = new Date()): string {
  const state = t.revokedAt
    ? `revoked ${t.revokedAt.toISOString()}`
    : t.expiresAt && t.expiresAt <= now
      ? `expired ${t.expiresAt.toISOString()}`
      : t.expiresAt
        ? `live until ${t.expiresAt.toISOString()}`
        : "live";
  const scope = t.scope
    ? Object.entries(t.scope)
        .map(([k, v]) => `${k}=${(v as string[]).join(",")}`)
        .join(" ")
    : "unrestricted";
  return `${t.id}\t${t.hint}\t${t.label ?? ""}\tissued ${t.createdAt.toISOString()}\t${state}\t${scope}`;
}
