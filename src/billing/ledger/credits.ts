import type { Logger } from "pino";
import type { Database } from "../../db/database.ts";
import type { AuditInput } from "./audit.ts";
import { DirectCharges } from "./direct-charges.ts";
import { LeaseBatches } from "./lease-batches.ts";
import {
  heartbeat,
  type Lease,
  registerProcess,
  sweepDeadProcesses,
  unregisterProcess,
} from "./leases.ts";
import { available, type Hold, LedgerError, reserve } from "./ledger.ts";
import { RecentRate } from "./recent-rate.ts";
import { type Settled, SettleQueue } from "./settle-queue.ts";

/**
 * Where a process's calls get their credits: leases taken from the account and reserved against
 * in memory, or per-call holds when the balance is small, and one settle queue (group commit)
 * for everything they charge. The only caller of the ledger's reserve and settle operations.
 */

export interface CreditsOptions {
  processId: string;
  /** Stable across restarts of the same gateway: a new incarnation voids the old one's leases. */
  instance: string;
  /** A process silent for this long is dead; its leases and holds are given back. */
  ttlMs: number;
  /** How much of an account's recent rate one lease covers. */
  leaseWindowMs: number;
  /** A lease covers at least this many calls of the size being reserved. */
  leaseMinCalls: number;
  /** Leases are taken only while the account keeps this many times the lease available besides. */
  leaseKeepFactor: number;
  /** A lease unused this long is given back. */
  leaseIdleMs: number;
  batchRowsMax: number;
  pendingRowsMax: number;
  /** See SettleQueueOptions.gatherMaxUs. */
  settleGatherUs?: number;
  /** See SettleQueueOptions.callsInFlight. */
  callsInFlight?: () => number;
}

/** What a call's credits were reserved from. */
export type Claim =
  | { kind: "none" }
  | { kind: "hold"; hold: Hold }
  | { kind: "lease"; lease: LeaseState; amount: number };

export type ClaimResult =
  | { ok: true; claim: Claim; available: number }
  | { ok: false; available: number; required: number };

interface LeaseState {
  lease: Lease;
  /** Credits of the lease not reserved by a call in flight nor charged. */
  free: number;
  /** Calls reserved against it and not yet settled. */
  inFlight: number;
  /** No new calls: given back once the calls in flight have settled. */
  retired: boolean;
  takenAt: number;
  lastUse: number;
}

interface AccountCredits {
  current: LeaseState | null;
  /** Leases retired but not yet given back (calls in flight). */
  retiring: Set<LeaseState>;
  acquiring: Promise<void> | null;
  /** Exponentially weighted CC per second reserved on this account by this process. */
  rate: RecentRate;
  /** No lease is tried before this time (the balance was too small at the last try). */
  noLeaseUntil: number;
  /** balance − held as last seen by this process. */
  lastAvailable: number;
  /** CC wanted by callers waiting for the lease being taken. */
  waiting: number;
}

/**
 * A settle refused without asking the store: the process gave it up (a drain that timed out
 * closes it), so a call cut by the drain is never settled, and never charged.
 */
export class SettleAbandoned extends Error {
  constructor() {
    super("the gateway is shutting down: this call was cut and is not settled");
  }
}

/** Most records of one direct-charge statement on PostgreSQL (see the constructor). */
const DIRECT_ROWS_POSTGRES = 200;

/** After a recall, this process uses per-call holds on the account for this long. */
const RECALL_COOLDOWN_MS = 5_000;
/** How long a caller short of credits waits for leased credits to come back. */
const RECALL_WAIT_MS = 250;

/** Half-life of the rate estimate, ms. */
const RATE_HALF_LIFE_MS = 1_000;
/** After a lease could not be taken, per-call holds are used for this long before trying again. */
const LEASE_RETRY_MS = 1_000;

export class Credits {
  readonly queue: SettleQueue;
  /** Leases taken and returned together with the other accounts' of the same moment. */
  private readonly leases: LeaseBatches;
  /** Deliveries already made (events), charged together with the others of the same moment. */
  private readonly direct: DirectCharges;
  private readonly accounts = new Map<number, AccountCredits>();
  private timer: NodeJS.Timeout | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  private alive = true;
  /** Set by stop() while it waits for the last retiring lease to be given back. */
  private allReturned: (() => void) | null = null;
  private stopped = false;
  /** Set by abandon(): the store is being closed under the calls still in flight. */
  private abandoned = false;
  /** Settles refused since abandon(). */
  private refusedSettles = 0;

  constructor(
    private readonly db: Database,
    private readonly log: Logger,
    readonly opts: CreditsOptions,
  ) {
    this.leases = new LeaseBatches(db, opts.processId);
    // PostgreSQL writes one part of an event's charges while this process delivers the part
    // before; PGlite runs in this thread, where parts would only add statements.
    this.direct = new DirectCharges(
      db.settles,
      db.kind === "postgres" ? DIRECT_ROWS_POSTGRES : opts.batchRowsMax,
    );
    this.queue = new SettleQueue(db, {
      batchRowsMax: opts.batchRowsMax,
      pendingRowsMax: opts.pendingRowsMax,
      gatherMaxUs: opts.settleGatherUs ?? 0,
      inProcess: db.kind === "pglite",
      ...(opts.callsInFlight ? { callsInFlight: opts.callsInFlight } : {}),
    });
    db.listen("lease_recall", (payload) => this.recalled(Number(payload)));
  }

  /**
   * Registers the process (voiding a dead predecessor's leases) and starts the heartbeat, and
   * apart from it the return of idle leases: the heartbeat's period follows the TTL (minutes),
   * while a lease unused for leaseIdleMs must go back within about that, so other processes and
   * per-call holds see those credits again.
   */
  async start(): Promise<{ voided: number }> {
    const out = await registerProcess(this.db, this.opts.processId, this.opts.instance);
    const every = Math.max(50, Math.floor(this.opts.ttlMs / 4));
    this.timer = setInterval(() => {
      this.tick().catch((err: unknown) => this.log.warn({ err }, "credit lease upkeep failed"));
    }, every);
    this.timer.unref();
    this.idleTimer = setInterval(
      () => this.returnIdle(),
      Math.max(25, Math.floor(this.opts.leaseIdleMs / 2)),
    );
    this.idleTimer.unref();
    return out;
  }

  /** Heartbeat and the sweep of dead processes. */
  async tick(): Promise<void> {
    this.alive = await heartbeat(this.db, this.opts.processId);
    if (!this.alive) {
      // Declared dead (a long pause, a lost database): the sweep voided our leases, so none of
      // them may be used again; what is in flight settles as per-call charges could not.
      this.log.error("this process was declared dead: its credit leases are void");
      for (const acct of this.accounts.values()) acct.current = null;
    }
    await sweepDeadProcesses(this.db, this.opts.ttlMs);
    this.returnIdle();
  }

  /**
   * Retires each lease unused for leaseIdleMs, or held for half the TTL: in memory, and a
   * statement only for a lease that goes back.
   */
  private returnIdle(): void {
    const now = Date.now();
    for (const acct of this.accounts.values()) {
      const l = acct.current;
      if (
        l &&
        (now - l.lastUse >= this.opts.leaseIdleMs || now - l.takenAt >= this.opts.ttlMs / 2)
      ) {
        this.retire(acct, l);
      }
    }
  }

  /** Reserves `amount` CC for one request of `accountId`. */
  async reserve(accountId: number, amount: number): Promise<ClaimResult> {
    if (this.opts.leaseMinCalls === 0) return this.hold(accountId, amount);
    if (amount === 0) {
      return { ok: true, claim: { kind: "none" }, available: await available(this.db, accountId) };
    }
    const acct = this.account(accountId);
    acct.rate.observe(amount, Date.now());
    // While a lease is being taken, callers wait for it rather than each holding its own credits;
    // the lease is sized for them too. A lease that cannot be had sends them to per-call holds.
    for (let tries = 0; tries < 3; tries++) {
      const fromLease = this.fromLease(acct, amount);
      if (fromLease) return fromLease;
      if (this.stopped || !this.alive || Date.now() < acct.noLeaseUntil) break;
      acct.waiting += amount;
      try {
        await this.acquire(acct, accountId, amount);
      } finally {
        acct.waiting -= amount;
      }
    }
    return this.hold(accountId, amount);
  }

  /**
   * A per-call hold: exact, one guarded statement per call. Short of credits while some are
   * leased (to this process or another), the leases are recalled and the hold tried once more:
   * across processes, exactly the affordable number of calls succeed.
   */
  private async hold(accountId: number, amount: number): Promise<ClaimResult> {
    const acct = this.account(accountId);
    let r = await reserve(this.db, accountId, amount, this.opts.processId);
    if (!r.ok && (await this.recall(accountId))) {
      r = await reserve(this.db, accountId, amount, this.opts.processId);
    }
    if (!r.ok) return r;
    acct.lastAvailable = r.available;
    return {
      ok: true,
      claim: r.hold ? { kind: "hold", hold: r.hold } : { kind: "none" },
      available: r.available,
    };
  }

  /**
   * Settles what `claim` reserved: the records (charges included) go into the next batch, and
   * this resolves once it is committed. A failed settle charges nothing and frees the credits it
   * reserved at once: a hold is released in its own statement, a lease's credits go back to it.
   */
  async settle(
    accountId: number,
    claim: Claim,
    records: readonly AuditInput[],
    idempotencyKey: string | null = null,
  ): Promise<Settled> {
    if (this.abandoned) {
      this.refusedSettles += 1;
      throw new SettleAbandoned();
    }
    const acct = this.account(accountId);
    if (claim.kind === "lease") {
      const l = claim.lease;
      try {
        const out = await this.queue.settle({
          accountId,
          hold: null,
          leaseId: l.lease.id,
          records,
          idempotencyKey,
        });
        l.free += claim.amount - out.charged;
        acct.lastAvailable = out.available;
        return out;
      } catch (err) {
        l.free += claim.amount;
        throw err;
      } finally {
        l.inFlight -= 1;
        if (l.retired && l.inFlight === 0) this.giveBack(acct, l);
      }
    }
    const hold = claim.kind === "hold" ? claim.hold : null;
    try {
      const out = await this.queue.settle({
        accountId,
        hold,
        leaseId: null,
        records,
        idempotencyKey,
      });
      acct.lastAvailable = out.available;
      return out;
    } catch (err) {
      if (hold) {
        await this.queue
          .settle({ accountId, hold, leaseId: null, records: [] })
          .catch((e: unknown) => this.log.error({ err: e }, "releasing a failed settle's hold"));
      }
      throw err;
    }
  }

  /**
   * Charges a delivery already made (a chain event) straight from the balance, with the other
   * accounts' deliveries of the same moment in one statement (direct-charges.ts): no hold or lease
   * first, as nothing is left to run. Null, with nothing written, when the account cannot pay for
   * it: the caller then reserves and settles as any call does (recalling leased credits, or
   * refused with its audit record).
   */
  async chargeDirect(accountId: number, records: readonly AuditInput[]): Promise<Settled | null> {
    if (this.abandoned) {
      this.refusedSettles += 1;
      throw new SettleAbandoned();
    }
    const out = await this.direct.charge({ accountId, records });
    if (out) {
      const acct = this.accounts.get(accountId);
      if (acct) acct.lastAvailable = out.available;
    }
    return out;
  }

  /**
   * Shutdown without the database (a drain that timed out closes it first): nothing more is
   * written — each settle from here on is refused (SettleAbandoned) before it reaches the store —
   * and the leases are given back by the next start of this instance or by the sweep.
   */
  abandon(): void {
    this.stopped = true;
    this.abandoned = true;
    this.stopTimers();
  }

  /** Whether abandon() was called: failures from here on are the shutdown's own doing. */
  get isAbandoned(): boolean {
    return this.abandoned;
  }

  /** Settles refused since abandon(): calls cut by the drain that ended after the store closed. */
  get unsettled(): number {
    return this.refusedSettles;
  }

  /** Shutdown: no new leases; every lease given back once its calls have settled. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopTimers();
    const pending: Promise<void>[] = [];
    for (const acct of this.accounts.values()) {
      if (acct.current) this.retire(acct, acct.current);
      if (acct.acquiring) pending.push(acct.acquiring);
    }
    await Promise.all(pending);
    for (const acct of this.accounts.values()) if (acct.current) this.retire(acct, acct.current);
    await this.direct.flushed();
    await this.queue.flushed();
    // Leases with calls still in flight are given back by those calls' settles; wait for them.
    if (this.retiringCount() > 0) {
      await new Promise<void>((resolve) => {
        this.allReturned = resolve;
      });
    }
    await unregisterProcess(this.db, this.opts.processId).catch(() => {});
  }

  private stopTimers(): void {
    if (this.timer) clearInterval(this.timer);
    if (this.idleTimer) clearInterval(this.idleTimer);
    this.timer = null;
    this.idleTimer = null;
  }

  /**
   * Asks every process (this one too) to give back the account's leases, and waits — briefly —
   * until they have. False when nothing was leased, so a caller is refused at once.
   */
  private async recall(accountId: number): Promise<boolean> {
    if ((await this.leasedOf(accountId)) === 0) return false;
    await this.db.notify("lease_recall", String(accountId));
    const deadline = Date.now() + RECALL_WAIT_MS;
    while (Date.now() < deadline) {
      if ((await this.leasedOf(accountId)) === 0) break;
      await new Promise<void>((resolve) => setTimeout(resolve, 5));
    }
    return true;
  }

  /** A recall reached this process: the account's lease goes back; per-call holds for a while. */
  private recalled(accountId: number): void {
    const acct = this.accounts.get(accountId);
    if (!acct) return;
    acct.noLeaseUntil = Date.now() + RECALL_COOLDOWN_MS;
    if (acct.current) this.retire(acct, acct.current);
  }

  private async leasedOf(accountId: number): Promise<number> {
    const { rows } = await this.db.query<{ leased: number }>(
      "SELECT leased FROM accounts WHERE id = $1",
      [accountId],
    );
    return rows[0]?.leased ?? 0;
  }

  private account(accountId: number): AccountCredits {
    let acct = this.accounts.get(accountId);
    if (!acct) {
      acct = {
        current: null,
        retiring: new Set(),
        acquiring: null,
        rate: new RecentRate(RATE_HALF_LIFE_MS, Date.now()),
        noLeaseUntil: 0,
        lastAvailable: 0,
        waiting: 0,
      };
      this.accounts.set(accountId, acct);
    }
    return acct;
  }

  private fromLease(acct: AccountCredits, amount: number): ClaimResult | null {
    const l = acct.current;
    if (!l || l.retired || l.free < amount) return null;
    l.free -= amount;
    l.inFlight += 1;
    l.lastUse = Date.now();
    // Refill before it runs dry: a new lease is taken in the background at a quarter left.
    if (l.free < l.lease.amount / 4 && !acct.acquiring && Date.now() >= acct.noLeaseUntil) {
      void this.acquire(acct, l.lease.accountId, amount);
    }
    return {
      ok: true,
      claim: { kind: "lease", lease: l, amount },
      available: acct.lastAvailable,
    };
  }

  /** Takes a new lease sized for the account's recent rate; coalesced per account. */
  private acquire(acct: AccountCredits, accountId: number, amount: number): Promise<void> {
    if (acct.acquiring) return acct.acquiring;
    const size = Math.max(
      amount * this.opts.leaseMinCalls,
      Math.ceil((acct.rate.perSecond * this.opts.leaseWindowMs) / 1000),
      2 * acct.waiting,
    );
    acct.acquiring = this.leases
      .take(accountId, size, size * this.opts.leaseKeepFactor)
      .then((taken) => {
        // Recalled while it was being taken: it goes straight back.
        if (!taken || this.stopped || !this.alive || Date.now() < acct.noLeaseUntil) {
          acct.noLeaseUntil = Date.now() + LEASE_RETRY_MS;
          if (taken) void this.leases.giveBack(taken.lease.id, accountId).catch(() => {});
          return;
        }
        acct.lastAvailable = taken.available;
        const previous = acct.current;
        const now = Date.now();
        acct.current = {
          lease: taken.lease,
          free: taken.lease.amount,
          inFlight: 0,
          retired: false,
          takenAt: now,
          lastUse: now,
        };
        if (previous) this.retire(acct, previous);
      })
      .catch((err: unknown) => {
        acct.noLeaseUntil = Date.now() + LEASE_RETRY_MS;
        this.log.warn({ err }, "taking a credit lease failed; per-call holds meanwhile");
      })
      .finally(() => {
        acct.acquiring = null;
      });
    return acct.acquiring;
  }

  private retire(acct: AccountCredits, l: LeaseState): void {
    if (acct.current === l) acct.current = null;
    if (l.retired) return;
    l.retired = true;
    acct.retiring.add(l);
    if (l.inFlight === 0) this.giveBack(acct, l);
  }

  private giveBack(acct: AccountCredits, l: LeaseState): void {
    // Every charge of the lease has settled (none in flight), so what is left is exact.
    this.leases
      .giveBack(l.lease.id, l.lease.accountId)
      .then((avail) => {
        if (avail !== null) acct.lastAvailable = avail;
      })
      .catch((err: unknown) =>
        this.log.warn({ err: new LedgerError("lease return", err) }, "left to the sweep"),
      )
      .finally(() => {
        acct.retiring.delete(l);
        if (this.allReturned && this.retiringCount() === 0) {
          this.allReturned();
          this.allReturned = null;
        }
      });
  }

  private retiringCount(): number {
    let n = 0;
    for (const acct of this.accounts.values()) n += acct.retiring.size;
    return n;
  }
}
