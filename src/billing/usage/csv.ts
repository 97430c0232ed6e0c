import type { Queryable } from "../../db/database.ts";
import type { Range } from "./usage.ts";
import { auditInRange, usageByMethod } from "./usage.ts";

/** RFC 4180: quote fields holding a comma, quote or line break; double inner quotes. */
function field(value: unknown): string {
  const text =
    value === null || value === undefined
      ? ""
      : value instanceof Date
        ? value.toISOString()
        : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One CSV record (RFC 4180), CRLF-ended. */
export const csvLine = (values: unknown[]) => `${values.map(field).join(",")}\r\n`;
const line = csvLine;

/** Every audit record of the range, oldest first: what a cycle's charges add up from. */
export async function auditCsv(db: Queryable, accountId: number, range: Range): Promise<string> {
  const rows = (await auditInRange(db, accountId, range, 1_000_000, true)).reverse();
  const header = [
    "id",
    "at",
    "request_id",
    "backend",
    "network",
    "method",
    "outcome",
    "error_code",
    "http_status",
    "estimated_cc",
    "charged_cc",
    "complexity",
    "duration_ms",
  ];
  return (
    line(header) +
    rows
      .map((r) =>
        line([
          r.id,
          r.at,
          r.request_id,
          r.backend,
          r.network,
          r.method,
          r.outcome,
          r.error_code,
          r.http_status,
          r.estimated_cc,
          r.charged_cc,
          r.complexity,
          r.duration_ms,
        ]),
      )
      .join("")
  );
}

/** The range's usage by backend, network and method. */
export async function usageCsv(db: Queryable, accountId: number, range: Range): Promise<string> {
  const rows = await usageByMethod(db, accountId, range);
  return (
    line(["backend", "network", "method", "calls", "charged_cc"]) +
    rows.map((r) => line([r.backend, r.network, r.method, r.calls, r.charged])).join("")
  );
}
