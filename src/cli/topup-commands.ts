import { settleInvoice } from "../billing/topups/credit.ts";
import {
  accountInvoices,
  allInvoices,
  INVOICE_STATUSES,
  type Invoice,
  invoiceJson,
} from "../billing/topups/invoices.ts";
import { createTopup } from "../billing/topups/topups.ts";
import type { Config } from "../config/schema.ts";
import { oneOf, positive } from "./checks.ts";
import { type DbCommand, done, namedAccount, text, UsageError } from "./db-command.ts";

const ACCOUNT = { name: "account", description: "the account's name or id" };

/** billing.topups, or the usage error that says it is off. */
function topupsOf(config: Config) {
  const topups = config.billing.topups;
  if (!topups) throw new UsageError("top-ups are off: set billing.topups in the config");
  return topups;
}

/** One invoice per line, each one JSON object: what scripts read. */
const lines = (invoices: readonly Invoice[]) =>
  invoices.map((i) => JSON.stringify(invoiceJson(i))).join("\n");

/** `blockgate topup …`: invoices for credits paid in bitcoin, and the operator's hand on them. */
export const TOPUP_COMMANDS: Record<string, DbCommand> = {
  "topup create": {
    summary: "an invoice for credits paid in bitcoin, at a fresh address",
    usage: "<account> <credits>",
    operands: [
      ACCOUNT,
      { name: "credits", description: "how many credits (CC) it buys", check: positive("CC") },
    ],
    options: [],
    examples: ["topup create acme 1000000"],
    async run({ db, config }, [ref, credits]) {
      const topups = topupsOf(config);
      const owner = await namedAccount(db, ref);
      const made = await createTopup(db, topups, owner.id, Number(credits));
      if (!made.ok) throw new UsageError(made.reason);
      return done(lines([made.invoice]));
    },
  },
  "topup list": {
    summary: "an account's invoices, newest first, one JSON object a line",
    usage: "<account>",
    operands: [ACCOUNT],
    options: [],
    examples: ["topup list acme"],
    async run({ db }, [ref]) {
      const owner = await namedAccount(db, ref);
      return done(lines(await accountInvoices(db, owner.id)));
    },
  },
  "topup invoices": {
    summary: "every account's invoices (the operator's view), newest first",
    usage: "[--status S]",
    operands: [],
    options: [
      {
        name: "status",
        value: "S",
        description: `only those of one status (${INVOICE_STATUSES.join(", ")})`,
        check: oneOf(INVOICE_STATUSES),
      },
    ],
    examples: ["topup invoices --status underpaid"],
    async run({ db }, _args, values) {
      const status = (text(values, "status") ?? null) as Invoice["status"] | null;
      const rows = await allInvoices(db, status);
      return done(
        rows
          .map((i) =>
            JSON.stringify({ ...invoiceJson(i), account: i.accountId, paidSats: i.seenSats }),
          )
          .join("\n"),
      );
    },
  },
  "topup settle": {
    summary: "credit an invoice by hand (underpaid, late, disputed): audited",
    usage: "<invoice> --note N [options]",
    operands: [{ name: "invoice", description: "the invoice's id (inv_…)" }],
    options: [
      { name: "note", value: "N", description: "why (kept with the invoice and the ledger entry)" },
      {
        name: "credits",
        value: "C",
        description: "credits to grant (default the invoice's)",
        check: positive("CC"),
      },
      { name: "by", value: "W", description: "who settles it (default $USER)" },
    ],
    examples: ['topup settle inv_… --note "paid 2 minutes late, price honoured"'],
    async run({ db }, [id], values) {
      const note = text(values, "note");
      if (!note) throw new UsageError("--note is required: say why the invoice is settled by hand");
      const credits = text(values, "credits");
      const out = await settleInvoice(db, id!, {
        who: text(values, "by") ?? process.env.USER ?? "operator",
        note,
        ...(credits === undefined ? {} : { credits: Number(credits) }),
      });
      if (!out.ok) throw new UsageError(out.reason);
      return done(JSON.stringify({ ...invoiceJson(out.invoice), credited: out.credited }));
    },
  },
};
