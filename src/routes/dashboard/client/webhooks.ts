// The Webhooks view: the account's endpoints with their latest delivery attempts (status,
// latency, result), registering one (its signing secret shown once) and deleting one, through
// the unified API's webhook mutations. A scoped session token cannot manage them (read-only).
import {
  DashboardCreateWebhookDocument,
  DashboardDeleteWebhookDocument,
  type DashboardWebhookFragment,
  DashboardWebhooksDocument,
  type WebhookEvent,
} from "../../../generated/operations.ts";
import { el, GraphQLFailure, query, table } from "./dom.ts";

const EVENTS: WebhookEvent[] = [
  "newBlock",
  "transactionConfirmations",
  "addressActivity",
  "mempoolFees",
];
const NETWORKS = ["mainnet", "testnet", "testnet4", "signet", "regtest"];

function follows(w: DashboardWebhookFragment): string {
  if (w.txid) return `${w.event} ${w.txid.slice(0, 12)}… until ${w.until ?? 6}`;
  if (w.address) return `${w.event} ${w.address}`;
  if (w.targets) return `${w.event} (${w.targets.join(", ")} blocks)`;
  return w.event;
}

function attemptsTable(w: DashboardWebhookFragment): HTMLElement {
  return table(
    `attempts-${w.id}`,
    ["Time", "Message", "#", "Result", "HTTP", "Latency ms", "Error"],
    w.attempts.map((a) => [
      a.at.replace("T", " ").slice(0, 19),
      a.messageId,
      a.attempt,
      a.result,
      a.httpStatus === null ? "" : String(a.httpStatus),
      a.latencyMs,
      a.error ?? "",
    ]),
    "No deliveries yet",
  );
}

export async function renderWebhooks(root: HTMLElement): Promise<void> {
  const view = new WebhooksView();
  root.replaceChildren(
    el("h2", {}, "Webhooks"),
    view.message,
    view.shown,
    view.list,
    el("details", { class: "new-webhook" }, el("summary", {}, "New webhook"), view.createForm()),
  );
  await view.refresh();
}

const field = (name: string, attrs: Record<string, string> = {}) =>
  el("label", {}, name, el("input", { name, "data-testid": `webhook-${name}`, ...attrs }));

const choice = (name: string, options: string[]) =>
  el(
    "label",
    {},
    name,
    el(
      "select",
      { name, "data-testid": `webhook-${name}` },
      ...options.map((o) => el("option", { value: o }, o)),
    ),
  );

/** The form's values as the createWebhook mutation takes them. */
function webhookInput(form: HTMLFormElement) {
  const data = new FormData(form);
  const text = (name: string) => String(data.get(name) ?? "").trim();
  const targets = text("targets")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map(Number);
  return {
    url: text("url"),
    event: text("event") as WebhookEvent,
    network: text("network"),
    txid: text("txid") || null,
    address: text("address") || null,
    until: text("until") ? Number(text("until")) : null,
    targets: targets.length > 0 ? targets : null,
    description: text("description") || null,
  };
}

/** The webhooks section: its list, its form, and where it says what happened. */
class WebhooksView {
  readonly message = el("p", { class: "note", "data-testid": "webhooks-message", role: "status" });
  readonly shown = el("div", { "data-testid": "new-webhook" });
  readonly list = el("div");

  private fail(err: unknown): void {
    this.message.className = "note error";
    this.message.textContent =
      err instanceof GraphQLFailure && err.code === "SCOPE_METHOD"
        ? "This session's token has a scope, so it cannot manage webhooks: sign in with an unrestricted token."
        : `Failed: ${(err as Error).message}`;
  }

  async refresh(): Promise<void> {
    const { account } = await query(DashboardWebhooksDocument, {});
    this.list.replaceChildren(
      table(
        "webhooks-table",
        ["ID", "Follows", "Network", "URL", "State", "Deliveries", ""],
        account.webhooks.map((w) => [
          w.id,
          follows(w),
          w.network,
          w.url,
          w.endedAt ? `ended (${w.endedWhy ?? ""})` : "live",
          el("details", {}, el("summary", {}, `${w.attempts.length} attempts`), attemptsTable(w)),
          w.endedAt ? "" : this.remove(w),
        ]),
        "No webhooks",
      ),
    );
  }

  private run(work: () => Promise<void>): void {
    this.message.className = "note";
    this.message.textContent = "";
    work()
      .then(() => this.refresh())
      .catch((err: unknown) => this.fail(err));
  }

  private remove(w: DashboardWebhookFragment): HTMLElement {
    const button = el(
      "button",
      { type: "button", "data-testid": `delete-webhook-${w.id}` },
      "Delete",
    );
    button.addEventListener("click", () =>
      this.run(async () => {
        if (!confirm(`Delete webhook ${w.id}? Nothing more is sent to ${w.url}.`)) return;
        await query(DashboardDeleteWebhookDocument, { id: w.id });
        this.message.textContent = `Webhook ${w.id} deleted.`;
      }),
    );
    return button;
  }

  createForm(): HTMLFormElement {
    const create = el(
      "form",
      { class: "scope-form", "data-testid": "create-webhook" },
      field("url", {
        required: "",
        placeholder: "https://example.com/hooks/blockgate",
        type: "url",
      }),
      choice("event", EVENTS),
      choice("network", NETWORKS),
      field("txid", { placeholder: "transactionConfirmations: the txid" }),
      field("until", { placeholder: "6", inputmode: "numeric" }),
      field("address", { placeholder: "addressActivity: the address" }),
      field("targets", { placeholder: "mempoolFees: 1, 6, 144" }),
      field("description", { maxlength: "200" }),
      el("button", { type: "submit", "data-testid": "create-webhook-submit" }, "Add webhook"),
    );
    create.addEventListener("submit", (e) => {
      e.preventDefault();
      this.run(async () => {
        const r = await query(DashboardCreateWebhookDocument, webhookInput(create));
        this.showSecret(r.createWebhook.endpoint.id, r.createWebhook.secret);
        create.reset();
      });
    });
    return create;
  }

  private showSecret(id: string, secret: string): void {
    this.shown.replaceChildren(
      el(
        "div",
        { class: "card reveal" },
        el(
          "p",
          {},
          `Webhook ${id} added. Its signing secret, shown this once: verify each delivery's webhook-signature with it (Standard Webhooks).`,
        ),
        el("code", { "data-testid": "new-webhook-secret" }, secret),
      ),
    );
  }
}
