// The "Add credits" view: an invoice for credits paid in bitcoin (QR code, BIP21 link, address),
// its status followed until it is paid (then its receipt), the account's invoices with a CSV, and
// the low-balance threshold whose crossing shows the banner at the top of the page.
import {
  DashboardCreateTopupDocument,
  DashboardSetLowBalanceDocument,
  type DashboardTopupFragment,
  DashboardTopupStatusDocument,
  DashboardTopupsDocument,
} from "../../../generated/operations.ts";
import { el, fmt, GraphQLFailure, labelled, query, secretBox, table } from "./dom.ts";

/** How often an open invoice's status is asked again. */
const STATUS_POLL_MS = 3_000;
/** Statuses after which nothing changes by itself. */
const FINAL = new Set(["paid", "settled", "expired", "underpaid", "late"]);

const STATUS_TEXT: Record<string, string> = {
  open: "Waiting for payment",
  pending: "Payment seen, waiting for confirmations",
  paid: "Paid: credits added",
  settled: "Settled by the operator: credits added",
  expired: "Expired: nothing was paid in time",
  underpaid: "Underpaid: the operator will settle it",
  late: "Paid after expiry: the operator will settle it",
};

const btc = (sats: number) => (sats / 100_000_000).toFixed(8).replace(/\.?0+$/, "");
const when = (iso: string | null) => (iso ? iso.replace("T", " ").slice(0, 19) : "");

/** The banner shown while the balance is under the account's threshold, or nothing. */
export function lowBalanceBanner(balance: number, threshold: number | null): HTMLElement | null {
  if (threshold === null || balance >= threshold) return null;
  return el(
    "p",
    { class: "banner", role: "alert", "data-testid": "low-balance" },
    `Your balance (${fmt(balance)} CC) is below your warning threshold of ${fmt(threshold)} CC. `,
    el("a", { href: "#add-credits" }, "Add credits"),
  );
}

/**
 * The view, where the gateway sells credits; elsewhere only the low-balance threshold (a grant
 * by the operator is then the way to more credits).
 */
export async function renderTopups(root: HTMLElement, banner: HTMLElement): Promise<void> {
  const view = new TopupsView(banner);
  const offered = await view.refresh();
  root.replaceChildren(
    ...(offered
      ? [
          el("h2", { id: "add-credits" }, "Add credits"),
          view.message,
          view.createForm(),
          view.invoice,
          view.list,
        ]
      : [el("h2", { id: "add-credits" }, "Low balance"), view.message]),
    view.thresholdForm(),
  );
  await view.refresh();
}

class TopupsView {
  readonly message = el("p", { class: "note", "data-testid": "topups-message", role: "status" });
  readonly invoice = el("div", { "data-testid": "topup-invoice" });
  readonly list = el("div");
  private timer: number | undefined;

  constructor(private readonly banner: HTMLElement) {}

  private fail(err: unknown): void {
    this.message.className = "note error";
    this.message.textContent =
      err instanceof GraphQLFailure && err.code === "SCOPE_METHOD"
        ? "This session's token has a scope, so it cannot buy credits: sign in with an unrestricted token."
        : `Failed: ${(err as Error).message}`;
  }

  /** Reads the account's invoices and threshold again; answers whether top-ups are offered. */
  async refresh(): Promise<boolean> {
    const { account } = await query(DashboardTopupsDocument, {});
    const shown = lowBalanceBanner(account.balance, account.lowBalanceCc);
    this.banner.replaceChildren(...(shown ? [shown] : []));
    const threshold = document.querySelector<HTMLInputElement>("input[name=lowBalance]");
    if (threshold && document.activeElement !== threshold)
      threshold.value = account.lowBalanceCc === null ? "" : String(account.lowBalanceCc);
    this.list.replaceChildren(
      el("h3", {}, "Invoices and receipts"),
      table(
        "topups-table",
        ["Created (UTC)", "Credits", "Sats", "Status", "Paid sats", "Paid (UTC)"],
        account.topups.map((i) => [
          when(i.createdAt),
          i.credits,
          i.sats,
          i.status,
          i.paidSats,
          when(i.paidAt),
        ]),
        "No invoices yet",
        "Top-up invoices",
        true,
      ),
      el(
        "a",
        {
          class: "button",
          href: "/dashboard/topups.csv",
          download: "",
          "data-testid": "csv-topups",
        },
        "Invoices CSV",
      ),
    );
    return account.topupsOffered;
  }

  createForm(): HTMLFormElement {
    const amount = el("input", {
      name: "credits",
      type: "number",
      min: "1",
      step: "1",
      required: "",
      inputmode: "numeric",
      "data-testid": "topup-credits",
    });
    const form = el(
      "form",
      { class: "topup-form" },
      labelled("Credits to buy (CC)", amount, "Paid in bitcoin; the price is the operator's."),
      el("button", { type: "submit", "data-testid": "topup-create" }, "Create invoice"),
    );
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      void this.create(Number(amount.value));
    });
    return form;
  }

  thresholdForm(): HTMLFormElement {
    const input = el("input", {
      name: "lowBalance",
      type: "number",
      min: "1",
      step: "1",
      inputmode: "numeric",
      "data-testid": "low-balance-input",
    });
    const form = el(
      "form",
      { class: "topup-form" },
      labelled("Warn me below (CC)", input, "Empty: no warning."),
      el("button", { type: "submit", "data-testid": "low-balance-save" }, "Save"),
    );
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const cc = input.value.trim() === "" ? null : Number(input.value);
      query(DashboardSetLowBalanceDocument, { cc })
        .then(() => this.refresh().then(() => undefined))
        .catch((err: unknown) => this.fail(err));
    });
    return form;
  }

  private async create(credits: number): Promise<void> {
    try {
      const { createTopup } = await query(DashboardCreateTopupDocument, { credits });
      this.message.className = "note";
      this.message.textContent = "";
      this.showInvoice(createTopup, createTopup.qrSvg);
      await this.refresh();
      this.follow(createTopup.id);
    } catch (err) {
      this.fail(err);
    }
  }

  private showInvoice(i: DashboardTopupFragment, svg: string): void {
    const qr = el("img", {
      class: "qr",
      alt: `QR code of the payment request for ${btc(i.sats)} BTC`,
      src: `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`,
      "data-testid": "topup-qr",
    });
    this.invoice.replaceChildren(
      el(
        "div",
        { class: "invoice" },
        qr,
        el(
          "div",
          {},
          el("p", {}, `Pay ${btc(i.sats)} BTC (${fmt(i.sats)} sats) for ${fmt(i.credits)} CC`),
          el(
            "a",
            { class: "button", href: i.bip21, "data-testid": "topup-bip21" },
            "Open in wallet",
          ),
          secretBox(i.address, "topup-address", "address"),
          el(
            "p",
            { class: "sub" },
            `Before ${when(i.expiresAt)} UTC · ${i.confirmations} confirmation(s)`,
          ),
          el(
            "p",
            { "data-testid": "topup-status", "data-status": i.status },
            STATUS_TEXT[i.status] ?? i.status,
          ),
          el("div", { "data-testid": "topup-receipt" }),
        ),
      ),
    );
  }

  /** Asks the invoice's status until it is final; shows the receipt once paid. */
  private follow(id: string): void {
    window.clearTimeout(this.timer);
    const tick = async () => {
      const { account } = await query(DashboardTopupStatusDocument, { id });
      const i = account.topup;
      if (!i) return;
      const status = this.invoice.querySelector<HTMLElement>("[data-testid=topup-status]");
      if (status) {
        status.dataset.status = i.status;
        status.textContent = STATUS_TEXT[i.status] ?? i.status;
      }
      if (i.status === "paid" || i.status === "settled") {
        this.invoice
          .querySelector("[data-testid=topup-receipt]")
          ?.replaceChildren(
            el("h3", {}, "Receipt"),
            el(
              "p",
              {},
              `Invoice ${i.id}: ${fmt(i.credits)} CC for ${fmt(i.paidSats)} sats, ${when(i.paidAt)} UTC.`,
            ),
            el("p", {}, `Balance now ${fmt(account.balance)} CC.`),
          );
      }
      if (FINAL.has(i.status)) {
        await this.refresh();
        return;
      }
      this.timer = window.setTimeout(
        () => void tick().catch((e: unknown) => this.fail(e)),
        STATUS_POLL_MS,
      );
    };
    void tick().catch((err: unknown) => this.fail(err));
  }
}
