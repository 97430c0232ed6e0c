import { createAccount, listAccounts, setAccountPlan } from "../billing/ledger/accounts.ts";
import { checkLedger, grantCredits, grantCreditsIn } from "../billing/ledger/ledger.ts";
import { auditCsv, usageCsv } from "../billing/usage/csv.ts";
import { cycleAt, cycleContaining } from "../billing/usage/cycles.ts";
import { latestAudit, usageByMethod } from "../billing/usage/usage.ts";
import type { Database } from "../db/database.ts";
import { type DbCommand, done, namedAccount, positiveInt, UsageError } from "./db-command.ts";

/** `blockgate account …`, `credits grant`, `usage`, `export` and `ledger check`. */
export const ACCOUNT_COMMANDS: Record<string, DbCommand> = {
  "account create": {
    usage: "account create <name> [--credits N]",
    options: ["credits"],
    arity: [1, 1],
    async run({ db }, [name], values) {
      const credits =
        values.credits === undefined ? 0 : positiveInt(values.credits, "--credits", "CC");
      // The account and its first credits together: never one without the other.
      const { created, balance } = await db.transaction(async (tx) => {
        const created = await createAccount(tx, name!);
        const balance =
          credits > 0 ? await grantCreditsIn(tx, created.id, credits, "initial grant") : 0;
        return { created, balance };
      });
      return done(`account ${created.name} (id ${created.id}) created, balance ${balance} CC`);
    },
  },
  "account list": {
    usage: "account list",
    options: [],
    arity: [0, 0],
    async run({ db }) {
      const rows = await listAccounts(db);
      const lines = rows.map(
        (a) =>
          `${a.id}\t${a.name}\tbalance ${a.balance} CC\theld ${a.held} CC\tplan ${a.plan ?? "default"}`,
      );
      return done(lines.join("\n") || "no accounts");
    },
  },
  "account plan": {
    usage: "account plan <account> <plan|default>",
    options: [],
    arity: [2, 2],
    async run({ db, config }, [ref, name]) {
      if (name !== "default" && !config.plans[name!]) {
        const known = Object.keys(config.plans);
        throw new UsageError(
          `no plan "${name}" in the config (${known.length > 0 ? `plans: ${known.join(", ")}` : "it has no plans"})`,
        );
      }
      const owner = await namedAccount(db, ref);
      await setAccountPlan(db, owner.id, name === "default" ? null : name!);
      return done(`account ${owner.name} (id ${owner.id}) is on plan ${name}`);
    },
  },
  "credits grant": {
    usage: "credits grant <account> <CC> [--memo M]",
    options: ["memo"],
    arity: [2, 2],
    async run({ db }, [ref, amount], values) {
      const cc = positiveInt(amount, "amount", "CC");
      const owner = await namedAccount(db, ref);
      const balance = await grantCredits(db, owner.id, cc, values.memo);
      return done(`granted ${cc} CC to ${owner.name}; balance ${balance} CC`);
    },
  },
  usage: {
    usage: "usage <account> [--limit N]",
    options: ["limit"],
    arity: [1, 1],
    async run({ db }, [ref], values) {
      const limit = values.limit === undefined ? 10 : positiveInt(values.limit, "--limit");
      if (limit > 1000) throw new UsageError("--limit: 1 to 1000");
      return done(await usage(db, ref, limit));
    },
  },
  export: {
    usage: "export <account> [--cycle N] [--kind audit|usage]",
    options: ["cycle", "kind"],
    arity: [1, 1],
    async run({ db, config }, [ref], values) {
      if (values.kind !== undefined && values.kind !== "audit" && values.kind !== "usage") {
        throw new UsageError("--kind: audit or usage");
      }
      const owner = await namedAccount(db, ref);
      const rule = config.billing.cycle;
      const current = cycleContaining(owner.createdAt, new Date(), rule);
      const index = values.cycle === undefined ? current.index : Number(values.cycle);
      if ((values.cycle !== undefined && !/^\d+$/.test(values.cycle)) || index > current.index) {
        throw new UsageError(`--cycle: 0 to ${current.index}`);
      }
      const cycle = cycleAt(owner.createdAt, index, rule);
      const csv =
        values.kind === "usage"
          ? await usageCsv(db, owner.id, cycle)
          : await auditCsv(db, owner.id, cycle);
      return done(csv.trimEnd());
    },
  },
  "ledger check": {
    usage: "ledger check",
    options: [],
    arity: [0, 0],
    async run({ db }) {
      const rows = await checkLedger(db);
      const bad = rows.filter((r) => !r.ok);
      const lines = rows.map(
        (r) =>
          `${r.ok ? "ok " : "BAD"} account ${r.accountId}: granted ${r.granted} − charged ${r.charged} = balance ${r.balance}; held ${r.held}; audit charged ${r.auditCharged}`,
      );
      return { text: lines.join("\n") || "no accounts", code: bad.length > 0 ? 1 : 0 };
    },
  },
};

async function usage(db: Database, ref: string | undefined, limit: number): Promise<string> {
  const owner = await namedAccount(db, ref);
  const totals = await usageByMethod(db, owner.id);
  const latest = await latestAudit(db, owner.id, limit);
  const lines = [
    `account ${owner.name} (id ${owner.id}): balance ${owner.balance} CC, held ${owner.held} CC, available ${owner.balance - owner.held} CC`,
    "",
    "backend\tnetwork\tmethod\tcalls\tcharged CC",
    ...totals.map((t) => `${t.backend}\t${t.network}\t${t.method}\t${t.calls}\t${t.charged}`),
    "",
    `latest ${latest.length} calls:`,
    ...latest.map(
      (r) =>
        `${r.at.toISOString()}\t${r.backend}/${r.network}\t${r.method}\t${r.outcome}${r.error_code ? ` (${r.error_code})` : ""}\t${r.charged_cc} CC`,
    ),
  ];
  return lines.join("\n");
}
