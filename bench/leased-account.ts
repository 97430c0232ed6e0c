// What the settle benches charge: an account funded beyond any run, a lease taken from it by a
// registered process (the gateway's calls are charged from leases), and settle items of n calls.
import { randomUUID } from "node:crypto";
import { createAccount } from "../src/billing/ledger/accounts.ts";
import { registerProcess, takeLease } from "../src/billing/ledger/leases.ts";
import { grantCredits } from "../src/billing/ledger/ledger.ts";
import type { SettleItem } from "../src/billing/ledger/settle-queue.ts";
import type { Database } from "../src/db/database.ts";

export interface LeasedAccount {
  accountId: number;
  leaseId: number;
  /** One request's settle: `calls` getrawtransaction calls charged from the lease. */
  item(calls: number): SettleItem;
}

export async function leasedAccount(db: Database): Promise<LeasedAccount> {
  const account = await createAccount(db, "settle");
  await grantCredits(db, account.id, 1e15);
  const processId = randomUUID();
  await registerProcess(db, processId, `bench-${processId}`);
  const lease = await takeLease(db, account.id, 1e14, 0, processId);
  if (!lease) throw new Error("no lease");
  const leaseId = lease.lease.id;
  return {
    accountId: account.id,
    leaseId,
    item: (calls) => ({
      accountId: account.id,
      hold: null,
      leaseId,
      records: Array.from({ length: calls }, () => ({
        requestId: randomUUID(),
        accountId: account.id,
        tokenId: null,
        backend: "node",
        network: "mainnet",
        method: "getrawtransaction",
        outcome: "ok" as const,
        httpStatus: 200,
        estimatedCc: 200,
        chargedCc: 200,
      })),
    }),
  };
}
