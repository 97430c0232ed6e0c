import type { Logger } from "pino";
import { fromHex } from "../../bitcoin/index.ts";
import { electrumScripthash } from "../../bitcoin/scripthash.ts";
import type { TopupsConfig } from "../../config/schema.ts";
import type { Database, Leadership } from "../../db/database.ts";
import type { ChainEvents } from "../../events/chain-events.ts";
import type { ElectrumPool } from "../../upstreams/electrum/pool.ts";
import type { VerifiedChain } from "../../verify/chain/verified-chain.ts";
import { applyJudgement, recordAfterCredit, recordedPayments } from "./credit.ts";
import { CREDITED_STATUSES, type Invoice, invoiceById, watchedInvoices } from "./invoices.ts";
import { ChainUnreadable, readPayments } from "./observe.ts";
import { confirmationsFor } from "./price.ts";
import { judge } from "./rules.ts";

export interface TopupWatcherServices {
  db: Database;
  /** The Electrum servers of the top-ups' network. */
  electrum: ElectrumPool;
  events: ChainEvents;
  /** The network's verified header chain, where verification is on: payments are proven on it. */
  verified?: VerifiedChain | undefined;
  log: Logger;
}

/** One invoice watched: its script hash and the subscription that tells of its changes. */
interface Watched {
  scripthash: string;
  release: (() => void) | null;
  /** Its last status: invoices with payments are looked at again at each new block. */
  status: Invoice["status"];
}

/** How long after a failed look (an upstream that did not answer) the invoice is looked at again. */
const LOOK_RETRY_MS = 1_000;

/** Statuses that may change with depth alone (a new block), not only with a new payment. */
const PAID_SOMETHING = new Set<Invoice["status"]>(["pending", "underpaid", "late"]);

/**
 * Watches the addresses of invoices not yet credited and credits each once its payment is deep
 * enough. One process of a deployment does it (a database role, like the chain follower): it
 * subscribes each address's script hash on the network's Electrum feed (mempool and blocks), looks
 * at every invoice with payments at each new tip and chain event, and sweeps the invoices now and
 * then (new ones another process made, expiry, a subscription lost). Exactly once does not rest on this being one process: the
 * credit is guarded in the database (credit.ts).
 */
export class TopupWatcher {
  private leadership: Leadership | null = null;
  private readonly watched = new Map<string, Watched>();
  /** Looks under way per invoice; a change meanwhile asks for one more look after it. */
  private readonly looking = new Map<string, { again: boolean; done: Promise<void> }>();
  private readonly stops: (() => void)[] = [];
  /** Looks that failed, to be tried again (one timer per invoice). */
  private readonly retries = new Map<string, NodeJS.Timeout>();
  private sweepTimer: NodeJS.Timeout | null = null;
  private leading = false;

  constructor(
    private readonly s: TopupWatcherServices,
    private readonly config: TopupsConfig,
    private readonly leaderRetryMs: number,
  ) {}

  start(): void {
    this.s.db.listen("topup_invoice", (id) => {
      if (this.leading) void this.watch(id);
    });
    this.leadership = this.s.db.lead(
      "topup-watcher",
      (leader) => (leader ? this.lead() : this.follow()),
      this.leaderRetryMs,
    );
  }

  async close(): Promise<void> {
    this.follow();
    await this.leadership?.stop();
    await Promise.all([...this.looking.values()].map((l) => l.done));
  }

  /**
   * Looks at one invoice now (its address read afresh), watching it from now on if it was not;
   * resolves when the look is over. Nothing while this process does not lead.
   */
  look(id: string): Promise<void> {
    if (!this.watched.has(id)) return this.watch(id);
    const under = this.looking.get(id);
    if (under) {
      under.again = true;
      return under.done;
    }
    const entry = { again: false, done: Promise.resolve() };
    entry.done = (async () => {
      do {
        entry.again = false;
        await this.lookOnce(id).catch((err: unknown) => this.failed(id, err));
      } while (entry.again && this.leading);
      this.looking.delete(id);
    })();
    this.looking.set(id, entry);
    return entry.done;
  }

  private lead(): void {
    this.leading = true;
    this.s.log.info({ network: this.config.network }, "watching top-up invoices");
    this.stops.push(this.s.electrum.onTip(() => this.lookAtPaid()));
    this.stops.push(
      this.s.events.observe((e) => {
        if (e.network === this.config.network) this.lookAtPaid();
      }),
    );
    this.sweepTimer = setInterval(() => void this.sweep(), this.config.sweepMs);
    this.sweepTimer.unref();
    void this.sweep();
  }

  private follow(): void {
    this.leading = false;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.sweepTimer = null;
    for (const stop of this.stops.splice(0)) stop();
    for (const timer of this.retries.values()) clearTimeout(timer);
    this.retries.clear();
    for (const id of [...this.watched.keys()]) this.unwatch(id);
  }

  /** Every watched invoice from the database: new ones watched, credited ones dropped. */
  private async sweep(): Promise<void> {
    try {
      const invoices = await watchedInvoices(
        this.s.db,
        this.config.network,
        this.config.lateWatchMinutes,
      );
      const live = new Set(invoices.map((i) => i.id));
      for (const id of [...this.watched.keys()]) if (!live.has(id)) this.unwatch(id);
      await Promise.all(invoices.filter((i) => this.due(i)).map((i) => this.watch(i.id)));
    } catch (err) {
      this.s.log.warn({ err }, "top-up sweep failed; the next one tries again");
    }
  }

  /**
   * Whether a sweep looks at the invoice: new to this watcher, its subscription not live (a
   * change would go unheard), payments whose depth changes, or an open one past its expiry.
   */
  private due(i: Invoice): boolean {
    const w = this.watched.get(i.id);
    if (!w || !this.s.electrum.scripthashes.covers(w.scripthash)) return true;
    if (PAID_SOMETHING.has(i.status)) return true;
    return i.status === "open" && i.expiresAt.getTime() < Date.now();
  }

  private async watch(id: string): Promise<void> {
    if (!this.leading) return;
    if (!this.watched.has(id)) {
      const invoice = await invoiceById(this.s.db, id);
      if (!invoice?.scriptHex || invoice.network !== this.config.network || !this.leading) return;
      // Another call may have started watching it while this one read it.
      if (!this.watched.has(id)) {
        const scripthash = electrumScripthash(fromHex(invoice.scriptHex));
        const w: Watched = { scripthash, release: null, status: invoice.status };
        this.watched.set(id, w);
        w.release = this.s.electrum.scripthashes.hold(scripthash, () => void this.look(id));
      }
    }
    await this.look(id);
  }

  private unwatch(id: string): void {
    this.watched.get(id)?.release?.();
    this.watched.delete(id);
  }

  /** A new block: depth changed for every invoice with payments. */
  private lookAtPaid(): void {
    for (const [id, w] of this.watched) if (PAID_SOMETHING.has(w.status)) void this.look(id);
  }

  private async lookOnce(id: string): Promise<void> {
    const w = this.watched.get(id);
    if (!w || !this.leading) return;
    const { db, electrum, log } = this.s;
    const invoice = await invoiceById(db, id);
    if (!invoice) return this.unwatch(id);
    const known = await recordedPayments(db, id);
    const seen = await readPayments(electrum, invoice, w.scripthash, known, this.s.verified);
    if (CREDITED_STATUSES.includes(invoice.status)) {
      w.status = invoice.status;
      return recordAfterCredit(db, invoice, seen.payments);
    }
    // No tip known (no headers subscription live): depth cannot be told, so nothing is judged.
    if (seen.tipHeight === null) return;
    const j = judge(seen.payments, {
      sats: invoice.sats,
      expired: Date.now() > invoice.expiresAt.getTime(),
      tipHeight: seen.tipHeight,
      confirmations: confirmationsFor(this.config, invoice.network),
    });
    const out = await applyJudgement(db, invoice, seen.payments, j);
    w.status = out.status;
    if (out.credited) {
      log.info({ invoice: id, txid: j.creditTxid, credits: invoice.credits }, "top-up credited");
    }
  }

  private failed(id: string, err: unknown): void {
    // Looked at again soon: a change that set this look off may not come again.
    if (this.leading && !this.retries.has(id)) {
      const timer = setTimeout(() => {
        this.retries.delete(id);
        void this.look(id);
      }, LOOK_RETRY_MS);
      timer.unref();
      this.retries.set(id, timer);
    }
    const level = err instanceof ChainUnreadable ? "info" : "warn";
    this.s.log[level](
      { err, invoice: id },
      "looking at a top-up invoice failed; looked at again later",
    );
  }
}
