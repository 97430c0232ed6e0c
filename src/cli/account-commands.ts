import {
  type Account,
  createAccount,
  listAccounts,
  setAccountPlan,
} from "../billing/ledger/accounts.ts";
import {
  checkLedger,
  grantCredits,
  grantCreditsIn,
  type LedgerCheck,
} from "../billing/ledger/ledger.ts";
import { auditCsv, usageCsv } from "../billing/usage/csv.ts";
import { cycleAt, cycleContaining } from "../billing/usage/cycles.ts";
import { oneOf, positive, wholeNumber } from "./checks.ts";
import { type DbCommand, done, namedAccount, shown, text, UsageError } from "./db-command.ts";
import { usageReport } from "./usage-report.ts";

const ACCOUNT: DbCommand["operands"][number] = {
  name: "account",
  description: "the account's name or id",
};

const planName = (a: Account) => a.plan ?? "default";

/** `blockgate account …`, `credits grant`, `usage`, `export` and `ledger check`. */
export const ACCOUNT_COMMANDS: Record<string, DbCommand> = {
  "account create": {
    summary: "create an account, optionally with credits",
    usage: "<name> [--credits N]",
    operands: [{ name: "name", description: "letters, digits, '.', '_', '@', '-' (1 to 64)" }],
    options: [
      {
        name: "credits",
        value: "N",
        description: "credits to grant it (CC)",
        check: positive("CC"),
      },
    ],
    json: true,
    examples: ["account create acme --credits 1000000"],
    async run({ db }, [name], values) {
      const credits = Number(text(values, "credits") ?? 0);
      // The account and its first credits together: never one without the other.
      const { created, balance } = await db.transaction(async (tx) => {
        const created = await createAccount(tx, name!);
        const balance =
          credits > 0 ? await grantCreditsIn(tx, created.id, credits, "initial grant") : 0;
        return { created, balance };
      });
      return shown(
        values,
        { id: created.id, name: created.name, balance },
        `account ${created.name} (id ${created.id}) created, balance ${balance} CC`,
      );
    },
  },
  "account list": {
    summary: "accounts with their balances and plans",
    usage: "",
    operands: [],
    options: [],
    json: true,
    examples: ["account list", "account list --json"],
    async run({ db }, _args, values) {
      const rows = await listAccounts(db);
      const lines = rows.map(
        (a) =>
          `${a.id}\t${a.name}\tbalance ${a.balance} CC\theld ${a.held} CC\tplan ${planName(a)}`,
      );
      const json = rows.map((a) => ({
        id: a.id,
        name: a.name,
        balance: a.balance,
        held: a.held,
        plan: planName(a),
      }));
      return shown(values, json, lines.join("\n") || "no accounts", {
        parts: [
          {
            table: {
              columns: [
                { header: "id", right: true },
                { header: "name" },
                { header: "balance CC", right: true },
                { header: "held CC", right: true },
                { header: "plan" },
              ],
              rows: rows.map((a) => [a.id, a.name, a.balance, a.held, planName(a)]),
              empty: "no accounts",
            },
          },
        ],
      });
    },
  },
  "account plan": {
    summary: "put an account on a plan of the config",
    usage: "<account> <plan|default>",
    operands: [ACCOUNT, { name: "plan", description: "a plan of the config, or default" }],
    options: [],
    json: true,
    examples: ["account plan acme starter", "account plan acme default"],
    async run({ db, config }, [ref, name], values) {
      if (name !== "default" && !config.plans[name!]) {
        const known = Object.keys(config.plans);
        throw new UsageError(
          `no plan "${name}" in the config (${known.length > 0 ? `plans: ${known.join(", ")}` : "it has no plans"})`,
        );
      }
      const owner = await namedAccount(db, ref);
      await setAccountPlan(db, owner.id, name === "default" ? null : name!);
      return shown(
        values,
        { id: owner.id, name: owner.name, plan: name },
        `account ${owner.name} (id ${owner.id}) is on plan ${name}`,
      );
    },
  },
  "credits grant": {
    summary: "add credits to an account",
    usage: "<account> <CC> [--memo M]",
    operands: [
      ACCOUNT,
      { name: "CC", label: "amount", description: "how many credits", check: positive("CC") },
    ],
    options: [{ name: "memo", value: "M", description: "a note kept with the grant" }],
    json: true,
    examples: ['credits grant acme 50000 --memo "invoice 2026-07"'],
    async run({ db }, [ref, amount], values) {
      const cc = Number(amount);
      const owner = await namedAccount(db, ref);
      const balance = await grantCredits(db, owner.id, cc, text(values, "memo"));
      return shown(
        values,
        { account: { id: owner.id, name: owner.name }, granted: cc, balance },
        `granted ${cc} CC to ${owner.name}; balance ${balance} CC`,
      );
    },
  },
  usage: {
    summary: "balance, usage by method and network, latest calls",
    usage: "<account> [--limit N]",
    operands: [ACCOUNT],
    options: [
      {
        name: "limit",
        value: "N",
        description: "how many of the latest calls to list (default 10)",
        check: wholeNumber(1, 1000),
      },
    ],
    json: true,
    examples: ["usage demo", "usage acme --limit 50 --json"],
    async run({ db }, [ref], values) {
      const owner = await namedAccount(db, ref);
      return usageReport(db, owner, Number(text(values, "limit") ?? 10), values);
    },
  },
  export: {
    summary: "a billing cycle's audit records or usage, as CSV",
    usage: "<account> [--cycle N] [--kind audit|usage]",
    operands: [ACCOUNT],
    options: [
      {
        name: "cycle",
        value: "N",
        description: "which cycle: 0 is the account's first (default: the current one)",
        check: wholeNumber(0),
      },
      {
        name: "kind",
        value: "audit|usage",
        description: "every call (audit, the default) or totals by method (usage)",
        check: oneOf(["audit", "usage"]),
      },
    ],
    examples: ["export acme > acme.csv", "export acme --cycle 0 --kind usage"],
    async run({ db, config }, [ref], values) {
      const owner = await namedAccount(db, ref);
      const rule = config.billing.cycle;
      const current = cycleContaining(owner.createdAt, new Date(), rule);
      const cycleText = text(values, "cycle");
      const index = cycleText === undefined ? current.index : Number(cycleText);
      if (index > current.index) throw new UsageError(`--cycle: 0 to ${current.index}`);
      const cycle = cycleAt(owner.createdAt, index, rule);
      const csv =
        values.kind === "usage"
          ? await usageCsv(db, owner.id, cycle)
          : await auditCsv(db, owner.id, cycle);
      return done(csv.trimEnd());
    },
  },
  "ledger check": {
    summary: "recompute every balance from the ledger and audit log",
    usage: "",
    operands: [],
    options: [],
    json: true,
    examples: ["ledger check"],
    async run({ db }, _args, values) {
      const rows = await checkLedger(db);
      const out = shown(
        values,
        rows.map(ledgerJson),
        rows.map(ledgerLine).join("\n") || "no accounts",
        {
          parts: [{ table: ledgerTable(rows) }],
        },
      );
      return { ...out, code: rows.some((r) => !r.ok) ? 1 : 0 };
    },
  },
};

const ledgerJson = (r: LedgerCheck) => ({
  accountId: r.accountId,
  ok: r.ok,
  granted: r.granted,
  charged: r.charged,
  balance: r.balance,
  held: r.held,
  auditCharged: r.auditCharged,
});

const ledgerLine = (r: LedgerCheck) =>
  `${r.ok ? "ok " : "BAD"} account ${r.accountId}: granted ${r.granted} − charged ${r.charged} = balance ${r.balance}; held ${r.held}; audit charged ${r.auditCharged}`;

function ledgerTable(rows: LedgerCheck[]) {
  const num = (header: string) => ({ header, right: true });
  return {
    columns: [
      { header: "check" },
      num("account"),
      num("granted"),
      num("charged"),
      num("balance"),
      num("held"),
      num("audit charged"),
    ],
    rows: rows.map((r) => [
      r.ok ? { text: "ok", tone: "good" as const } : { text: "BAD", tone: "bad" as const },
      r.accountId,
      r.granted,
      r.charged,
      r.balance,
      r.held,
      r.auditCharged,
    ]),
    empty: "no accounts",
  };
}
