import { lowBalanceOf, setLowBalance } from "../../../billing/ledger/low-balance.ts";
import { qrSvg } from "../../../billing/topups/bip21.ts";
import {
  accountInvoices,
  type Invoice,
  invoiceById,
  invoiceJson,
} from "../../../billing/topups/invoices.ts";
import { confirmationsFor } from "../../../billing/topups/price.ts";
import { createTopup } from "../../../billing/topups/topups.ts";
import { builder } from "../builder.ts";
import { codedError } from "../errors.ts";
import { AccountRef } from "./account.ts";
import { manager } from "./tokens.ts";

/** Invoices one listing returns at most. */
const TOPUPS_LIST_MAX = 500;

/**
 * Credits paid in bitcoin: an invoice asked by a mutation, the account's invoices on Account.
 * Free, like the account's other own data: a top-up touches no upstream for its caller.
 */
const TopupRef = builder.objectRef<Invoice>("TopupInvoice").implement({
  description:
    "An invoice for credits paid in bitcoin: `sats` to `address` before `expiresAt` buys `credits` CC, credited once the payment is `confirmations` deep.",
  fields: (t) => ({
    id: t.id({ resolve: (i) => i.id }),
    address: t.string({ resolve: (i) => i.address }),
    network: t.string({ resolve: (i) => i.network }),
    sats: t.field({
      type: "Credits",
      description: "The amount, satoshis.",
      resolve: (i) => i.sats,
    }),
    credits: t.field({ type: "Credits", resolve: (i) => i.credits }),
    bip21: t.string({
      description: "The payment request (BIP21 URI) a wallet opens.",
      resolve: (i) => invoiceJson(i).bip21,
    }),
    qrSvg: t.string({
      description: "The payment request as a QR code, an SVG document.",
      resolve: (i) => qrSvg(invoiceJson(i).bip21),
    }),
    status: t.string({
      description:
        "open, pending (a payment seen, not yet deep enough or not enough), paid (credited), expired, underpaid, late (paid after expiry), settled (credited by an operator).",
      resolve: (i) => i.status,
    }),
    paidSats: t.field({
      type: "Credits",
      description: "Paid to the address in time, mempool included (more than `sats`: overpaid).",
      resolve: (i) => i.seenSats,
    }),
    confirmedSats: t.field({ type: "Credits", resolve: (i) => i.confirmedSats }),
    confirmations: t.int({
      description: "Confirmations a payment needs before it is credited.",
      resolve: (i, _args, ctx) => {
        const topups = ctx.services.config.billing.topups;
        return topups ? confirmationsFor(topups, i.network) : 0;
      },
    }),
    createdAt: t.field({ type: "DateTime", resolve: (i) => i.createdAt }),
    expiresAt: t.field({ type: "DateTime", resolve: (i) => i.expiresAt }),
    paidAt: t.field({ type: "DateTime", nullable: true, resolve: (i) => i.paidAt }),
  }),
});

builder.objectField(AccountRef, "topups", (t) =>
  t.field({
    type: [TopupRef],
    description: "The account's top-up invoices, newest first. Free.",
    args: { limit: t.arg.int({ defaultValue: 50 }) },
    resolve: (a, { limit }, ctx) =>
      accountInvoices(ctx.services.db, a.id, Math.min(Math.max(limit ?? 50, 1), TOPUPS_LIST_MAX)),
  }),
);

builder.objectField(AccountRef, "topup", (t) =>
  t.field({
    type: TopupRef,
    nullable: true,
    description: "One of the account's invoices by id (its live status). Free.",
    args: { id: t.arg.id({ required: true }) },
    resolve: async (a, { id }, ctx) => {
      const found = await invoiceById(ctx.services.db, String(id));
      return found && found.accountId === a.id ? found : null;
    },
  }),
);

builder.objectField(AccountRef, "topupsOffered", (t) =>
  t.boolean({
    description: "Whether this gateway sells credits paid in bitcoin (createTopup). Free.",
    resolve: (_a, _args, ctx) => ctx.services.config.billing.topups !== undefined,
  }),
);

builder.objectField(AccountRef, "lowBalanceCc", (t) =>
  t.field({
    type: "Credits",
    nullable: true,
    description:
      "The low-balance threshold: below it the dashboard shows a warning. Null: none. Free.",
    resolve: (a, _args, ctx) => lowBalanceOf(ctx.services.db, a.id),
  }),
);

builder.mutationFields((t) => ({
  setLowBalance: t.field({
    type: "Credits",
    nullable: true,
    description:
      "Sets the account's low-balance threshold (null clears it); answers it. Needs an unrestricted token. Free.",
    args: { cc: t.arg({ type: "Credits", required: false }) },
    resolve: async (_root, { cc }, ctx) => {
      const accountId = manager(ctx, "the low-balance threshold");
      if (cc !== null && cc !== undefined && cc <= 0) {
        throw codedError("INVALID_PARAMS", "cc: a positive number of credits, or null");
      }
      await setLowBalance(ctx.services.db, accountId, cc ?? null);
      return cc ?? null;
    },
  }),
  createTopup: t.field({
    type: TopupRef,
    description:
      "An invoice for `credits` CC, paid in bitcoin to a fresh address of the operator's. Needs an unrestricted token. Free.",
    args: { credits: t.arg({ type: "Credits", required: true }) },
    resolve: async (_root, { credits }, ctx) => {
      const accountId = manager(ctx, "top-ups");
      const topups = ctx.services.config.billing.topups;
      if (!topups) throw codedError("NOT_FOUND", "top-ups are not offered by this gateway");
      const made = await createTopup(ctx.services.db, topups, accountId, credits);
      if (!made.ok) throw codedError("INVALID_PARAMS", made.reason);
      return made.invoice;
    },
  }),
}));
