import type { TopupsConfig } from "../../config/schema.ts";
import type { Database } from "../../db/database.ts";
import { type AddressDeriver, addressDeriver } from "./addresses.ts";
import { createInvoice, type Invoice, openInvoiceCount } from "./invoices.ts";
import { quote } from "./price.ts";

export type CreateResult = { ok: true; invoice: Invoice } | { ok: false; reason: string };

/** Derivers by config object: the descriptor is parsed once per config, not per invoice. */
const derivers = new WeakMap<TopupsConfig, AddressDeriver>();

/** The config's deriver (its descriptor checked on first use; a refusal names the config path). */
export function deriverFor(config: TopupsConfig): AddressDeriver {
  let d = derivers.get(config);
  if (!d) {
    d = addressDeriver(config);
    derivers.set(config, d);
  }
  return d;
}

/**
 * An invoice for `credits` CC to `accountId`: priced, at the descriptor's next address, and
 * announced to the process that watches invoices. Refused (nothing stored) below the minimum,
 * off the packages, or past the account's open invoices.
 */
export async function createTopup(
  db: Database,
  config: TopupsConfig,
  accountId: number,
  credits: number,
): Promise<CreateResult> {
  const price = quote(config, credits);
  if (!price.ok) return price;
  if ((await openInvoiceCount(db, accountId)) >= config.openPerAccountMax) {
    return {
      ok: false,
      reason: `the account holds ${config.openPerAccountMax} open invoices already: pay or let one expire first`,
    };
  }
  const invoice = await createInvoice(db, deriverFor(config), {
    accountId,
    network: config.network,
    sats: price.sats,
    credits,
    ttlMinutes: config.invoiceTtlMinutes,
  });
  await db.notify("topup_invoice", invoice.id);
  return { ok: true, invoice };
}
