import type { Account } from "../billing/ledger/accounts.ts";
import {
  type AuditRow,
  latestAudit,
  type UsageRow,
  usageByMethod,
} from "../billing/usage/usage.ts";
import type { Database } from "../db/database.ts";
import { type CommandOutput, shown, type Values } from "./db-command.ts";
import type { Table } from "./view.ts";

/** Seconds are enough on a terminal; --json keeps the milliseconds. */
const shortTime = (at: Date) => at.toISOString().replace(/\.\d{3}Z$/, "Z");

function byMethodTable(totals: UsageRow[]): Table {
  return {
    columns: [
      { header: "backend" },
      { header: "network" },
      { header: "method" },
      { header: "calls", right: true },
      { header: "charged CC", right: true },
    ],
    rows: totals.map((t) => [t.backend, t.network, t.method, t.calls, t.charged]),
    empty: "no calls yet",
  };
}

/** The calls and credits of each backend and network, summed over methods. */
function byNetwork(totals: UsageRow[]) {
  const sums = new Map<
    string,
    { backend: string; network: string; calls: number; charged: number }
  >();
  for (const t of totals) {
    const key = `${t.backend}/${t.network}`;
    const sum = sums.get(key) ?? { backend: t.backend, network: t.network, calls: 0, charged: 0 };
    sum.calls += t.calls;
    sum.charged += t.charged;
    sums.set(key, sum);
  }
  return [...sums.values()];
}

function byNetworkTable(sums: ReturnType<typeof byNetwork>): Table {
  return {
    columns: [
      { header: "backend" },
      { header: "network" },
      { header: "calls", right: true },
      { header: "charged CC", right: true },
    ],
    rows: sums.map((s) => [s.backend, s.network, s.calls, s.charged]),
    empty: "no calls yet",
  };
}

function latestTable(latest: AuditRow[]): Table {
  return {
    columns: [
      { header: "at" },
      { header: "backend" },
      { header: "network" },
      { header: "method" },
      { header: "outcome" },
      { header: "charged CC", right: true },
    ],
    rows: latest.map((r) => [
      shortTime(r.at),
      r.backend,
      r.network,
      r.method,
      r.error_code
        ? { text: `${r.outcome} (${r.error_code})`, tone: "bad" as const }
        : r.outcome === "ok"
          ? r.outcome
          : { text: r.outcome, tone: "dim" as const },
      r.charged_cc,
    ]),
    empty: "no calls yet",
  };
}

/** `blockgate usage <account>`: the balance, calls and credits by method, the latest calls. */
export async function usageReport(
  db: Database,
  owner: Account,
  limit: number,
  values: Values,
): Promise<CommandOutput> {
  const totals = await usageByMethod(db, owner.id);
  const latest = await latestAudit(db, owner.id, limit);
  const available = owner.balance - owner.held;
  const head = `account ${owner.name} (id ${owner.id}): balance ${owner.balance} CC, held ${owner.held} CC, available ${available} CC`;
  const text = [
    head,
    "",
    "backend\tnetwork\tmethod\tcalls\tcharged CC",
    ...totals.map((t) => `${t.backend}\t${t.network}\t${t.method}\t${t.calls}\t${t.charged}`),
    "",
    `latest ${latest.length} calls:`,
    ...latest.map(
      (r) =>
        `${r.at.toISOString()}\t${r.backend}/${r.network}\t${r.method}\t${r.outcome}${r.error_code ? ` (${r.error_code})` : ""}\t${r.charged_cc} CC`,
    ),
  ].join("\n");
  const json = {
    account: {
      id: owner.id,
      name: owner.name,
      balance: owner.balance,
      held: owner.held,
      available,
    },
    byMethod: totals.map((t) => ({
      backend: t.backend,
      network: t.network,
      method: t.method,
      calls: t.calls,
      refused: t.refused,
      charged: t.charged,
    })),
    byNetwork: byNetwork(totals),
    latest: latest.map((r) => ({
      at: r.at.toISOString(),
      backend: r.backend,
      network: r.network,
      method: r.method,
      outcome: r.outcome,
      errorCode: r.error_code,
      charged: r.charged_cc,
    })),
  };
  const calls =
    totals.length === 0
      ? ["no calls yet"]
      : [
          "by method:",
          { table: byMethodTable(totals) },
          "",
          "by network:",
          { table: byNetworkTable(json.byNetwork) },
          "",
          `latest ${latest.length === 1 ? "call" : `${latest.length} calls`}:`,
          { table: latestTable(latest) },
        ];
  return shown(values, json, text, { parts: [head, "", ...calls] });
}
