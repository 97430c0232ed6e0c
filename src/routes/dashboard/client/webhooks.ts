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
import { el, GraphQLFailure, labelled, query, secretBox, table } from "./dom.ts";

/** The events, as a person reads them, and the fields each one takes besides URL and network. */
const EVENTS: { event: WebhookEvent; label: string; fields: string[] }[] = [
  { event: "newBlock", label: "New block", fields: [] },
  {
    event: "transactionConfirmations",
    label: "Transaction confirmations",
    fields: ["txid", "until"],
  },
  { event: "addressActivity", label: "Address activity", fields: ["address"] },
  { event: "mempoolFees", label: "Mempool fee estimates", fields: ["targets"] },
  { event: "creditsLow", label: "Balance under my threshold", fields: [] },
];
const NETWORKS = ["mainnet", "testnet", "testnet4", "signet", "regtest"];
/** The fields only some events take; each is shown for those events alone. */
const EVENT_FIELDS = ["txid", "until", "address", "targets"];

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
    `Delivery attempts of webhook ${w.id}`,
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

const field = (name: string, label: string, hint: string, attrs: Record<string, string> = {}) =>
  labelled(
    label,
    el("input", { name, autocomplete: "off", "data-testid": `webhook-${name}`, ...attrs }),
    hint,
  );

const choice = (name: string, label: string, options: [string, string][], hint?: string) =>
  labelled(
    label,
    el(
      "select",
      { name, "data-testid": `webhook-${name}` },
      ...options.map(([value, text]) => el("option", { value }, text)),
    ),
    hint,
  );

/**
 * Shows the chosen event's own fields and hides the others. Hidden fields are disabled too, so
 * that they are not sent and their checks do not block the form.
 */
function showEventFields(form: HTMLFormElement, event: string): void {
  const wanted = EVENTS.find((e) => e.event === event)?.fields ?? [];
  for (const name of EVENT_FIELDS) {
    const input = form.querySelector<HTMLInputElement>(`input[name=${name}]`);
    const label = input?.closest("label");
    if (!input || !label) continue;
    const shown = wanted.includes(name);
    label.hidden = !shown;
    input.disabled = !shown;
  }
}

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
        "Webhooks",
        true,
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
      {
        type: "button",
        class: "danger",
        "data-testid": `delete-webhook-${w.id}`,
        "aria-label": `Delete webhook ${w.id}`,
      },
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
    const events = EVENTS.map((e): [string, string] => [e.event, e.label]);
    const networks = NETWORKS.map((n): [string, string] => [n, n]);
    const create = el(
      "form",
      { class: "scope-form", "data-testid": "create-webhook" },
      ...webhookFields(events, networks),
      el(
        "button",
        { type: "submit", class: "primary", "data-testid": "create-webhook-submit" },
        "Add webhook",
      ),
    );
    const event = create.querySelector<HTMLSelectElement>("select[name=event]")!;
    event.addEventListener("change", () => showEventFields(create, event.value));
    showEventFields(create, event.value);
    create.addEventListener("submit", (e) => {
      e.preventDefault();
      this.run(async () => {
        const r = await query(DashboardCreateWebhookDocument, webhookInput(create));
        this.showSecret(r.createWebhook.endpoint.id, r.createWebhook.secret);
        create.reset();
        showEventFields(create, event.value);
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
        secretBox(secret, "new-webhook-secret", "the signing secret"),
      ),
    );
  }
}

/** The form's fields: every event's, of which showEventFields shows the chosen event's. */
function webhookFields(events: [string, string][], networks: [string, string][]): HTMLElement[] {
  return [
    field("url", "Endpoint URL", "Where each delivery is POSTed, signed (Standard Webhooks).", {
      required: "",
      placeholder: "https://example.com/hooks/blockgate",
      type: "url",
    }),
    choice("event", "Event", events, "What to be told about."),
    choice("network", "Network", networks),
    field("txid", "Transaction ID (txid)", "The transaction to follow: 64 hex characters.", {
      required: "",
      pattern: "[0-9a-fA-F]{64}",
      placeholder: "f4184fc5…9e16",
      spellcheck: "false",
    }),
    field(
      "until",
      "Until confirmations",
      "Stop after this many confirmations, 1 – 1000 (6 if empty).",
      {
        type: "number",
        min: "1",
        max: "1000",
        placeholder: "6",
        inputmode: "numeric",
      },
    ),
    field("address", "Address", "The address whose transactions to be told of.", {
      required: "",
      placeholder: "bc1q…",
      spellcheck: "false",
    }),
    field(
      "targets",
      "Confirmation targets (blocks, comma-separated)",
      "Up to 25 targets of 1 – 1008 blocks (1, 6, 144 if empty).",
      {
        placeholder: "1, 6, 144",
      },
    ),
    field("description", "Description (optional)", "A note for yourself.", { maxlength: "200" }),
  ];
}
