import { formatAmount } from "../../../bitcoin/index.ts";
import { builder } from "../builder.ts";

/** Amount's fields whose resolvers read their parent alone (see TRANSACTION_PLAIN_FIELDS). */
export const AMOUNT_PLAIN_FIELDS: ReadonlySet<string> = new Set(["sats", "btc"]);

/** An amount in both exact forms; never a float. */
export const Amount = builder.objectRef<bigint>("Amount").implement({
  description:
    "An amount of bitcoin, exact: in satoshis and as Bitcoin Core's 8-decimal BTC string.",
  fields: (t) => ({
    sats: t.field({ type: "Satoshis", resolve: (v) => v }),
    btc: t.field({ type: "BtcAmount", resolve: (v) => formatAmount(v) }),
  }),
});
