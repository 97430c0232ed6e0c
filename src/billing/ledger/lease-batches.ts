import type { Queryable } from "../../db/database.ts";
import { type Lease, returnLeases, takeLeases } from "./leases.ts";

/** Most leases one statement takes or returns. */
const BATCH_MAX = 500;

interface TakeAsk {
  accountId: number;
  amount: number;
  keep: number;
  resolve(out: { lease: Lease; available: number } | null): void;
  reject(err: unknown): void;
}

interface ReturnAsk {
  leaseId: number;
  accountId: number;
  resolve(available: number | null): void;
  reject(err: unknown): void;
}

/**
 * Takes and returns credit leases in batches: what this process's accounts ask in the same turn of
 * the event loop goes as one statement. A block announced to a thousand subscribers (or webhook
 * endpoints) of a thousand accounts asks a thousand leases at once, each of which was a statement
 * of its own on a store that runs one at a time (PGlite) or a round trip each (PostgreSQL). An
 * account appears once per statement (its takes are coalesced by credits.ts; a second waits for
 * the next statement), so the guarded update sees each account's own row.
 */
export class LeaseBatches {
  private takes: TakeAsk[] = [];
  private returns: ReturnAsk[] = [];
  private scheduled = false;

  constructor(
    private readonly db: Queryable,
    private readonly processId: string,
  ) {}

  take(accountId: number, amount: number, keep: number) {
    return new Promise<{ lease: Lease; available: number } | null>((resolve, reject) => {
      this.takes.push({ accountId, amount, keep, resolve, reject });
      this.schedule();
    });
  }

  /** Returns a lease; resolves with its account's available balance after (null: none returned). */
  giveBack(leaseId: number, accountId: number) {
    return new Promise<number | null>((resolve, reject) => {
      this.returns.push({ leaseId, accountId, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flushTakes(this.takes.splice(0));
      void this.flushReturns(this.returns.splice(0));
    });
  }

  private async flushTakes(asks: TakeAsk[]): Promise<void> {
    while (asks.length > 0) {
      const batch = oncePerAccount(asks);
      try {
        const out = await takeLeases(this.db, this.processId, batch);
        for (const [i, a] of batch.entries()) a.resolve(out[i] ?? null);
      } catch (err) {
        for (const a of batch) a.reject(err);
      }
    }
  }

  private async flushReturns(asks: ReturnAsk[]): Promise<void> {
    while (asks.length > 0) {
      const batch = asks.splice(0, BATCH_MAX);
      try {
        const available = await returnLeases(
          this.db,
          batch.map((a) => a.leaseId),
        );
        for (const a of batch) a.resolve(available.get(a.accountId) ?? null);
      } catch (err) {
        for (const a of batch) a.reject(err);
      }
    }
  }
}

/** Takes from `asks` the next batch: at most BATCH_MAX, each account once (the rest stay). */
function oncePerAccount<T extends { accountId: number }>(asks: T[]): T[] {
  const batch: T[] = [];
  const seen = new Set<number>();
  for (let i = 0; i < asks.length && batch.length < BATCH_MAX; ) {
    const a = asks[i] as T;
    if (seen.has(a.accountId)) {
      i++;
      continue;
    }
    seen.add(a.accountId);
    batch.push(a);
    asks.splice(i, 1);
  }
  return batch;
}
