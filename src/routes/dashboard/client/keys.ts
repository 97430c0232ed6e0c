// The Keys view: the account's tokens, and creating (shown once), restricting, rotating and
// revoking them, all through the unified API's self-service mutations (they act on this account
// only). Signed in with a scoped token, the view is read-only: the API refuses it key management.
import {
  DashboardCreateKeyDocument,
  DashboardKeysDocument,
  DashboardRestrictKeyDocument,
  DashboardRevokeKeyDocument,
  DashboardRotateKeyDocument,
  type DashboardTokenFragment,
  type TokenScopeInput,
} from "../../../generated/operations.ts";
import { el, GraphQLFailure, labelled, query, secretBox, table } from "./dom.ts";

const DIMENSIONS = ["backends", "networks", "methods", "origins", "ips"] as const;
type Dimension = (typeof DIMENSIONS)[number];
/** Each scope field's label, example and hint; every field is a comma-separated list. */
const FIELDS: Record<Dimension, { label: string; example: string; hint: string }> = {
  backends: {
    label: "Allowed backends",
    example: "node, electrum",
    hint: "Any of node, electrum, graph, gateway, comma-separated. Empty: all.",
  },
  networks: {
    label: "Allowed networks",
    example: "mainnet, signet",
    hint: "mainnet, testnet, testnet4, signet, regtest, comma-separated. Empty: all.",
  },
  methods: {
    label: "Allowed methods",
    example: "getrawtransaction, blockchain.transaction.get",
    hint: "JSON-RPC methods, the graph route's root fields, or graphql (the unified API), comma-separated. Empty: all.",
  },
  origins: {
    label: "Allowed browser origins",
    example: "https://app.example",
    hint: "Web pages allowed to call with this key, comma-separated. Empty: any.",
  },
  ips: {
    label: "Allowed IP ranges (CIDR, comma-separated)",
    example: "203.0.113.0/24",
    hint: "Addresses or ranges, IPv4 or IPv6, e.g. 203.0.113.0/24, 2001:db8::/32. Empty: any.",
  },
};

/** Comma-separated fields → a scope input; every field empty → null (unrestricted). */
function scopeFrom(form: HTMLFormElement): TokenScopeInput | null {
  const data = new FormData(form);
  const scope: TokenScopeInput = {
    backends: null,
    networks: null,
    methods: null,
    origins: null,
    ips: null,
  };
  let any = false;
  for (const d of DIMENSIONS) {
    const items = String(data.get(d) ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    if (items.length > 0) {
      scope[d] = items;
      any = true;
    }
  }
  return any ? scope : null;
}

function scopeFields(current: DashboardTokenFragment["scope"]): HTMLElement[] {
  return DIMENSIONS.map((d) =>
    labelled(
      FIELDS[d].label,
      el("input", {
        name: d,
        placeholder: FIELDS[d].example,
        value: current?.[d]?.join(", ") ?? "",
        autocomplete: "off",
        spellcheck: "false",
        "data-testid": `scope-${d}`,
      }),
      FIELDS[d].hint,
    ),
  );
}

function scopeText(scope: DashboardTokenFragment["scope"]): string {
  if (!scope) return "unrestricted";
  return (
    DIMENSIONS.filter((d) => scope[d])
      .map((d) => `${d}: ${scope[d]!.join(", ")}`)
      .join("; ") || "unrestricted"
  );
}

export async function renderKeys(root: HTMLElement): Promise<void> {
  const view = new KeysView();
  root.replaceChildren(
    el("h2", {}, "Keys"),
    view.message,
    view.shown,
    view.list,
    el("details", { class: "new-key" }, el("summary", {}, "New key"), view.createForm()),
  );
  await view.refresh();
}

/** The keys section: its list, its forms, and where it says what happened. */
class KeysView {
  readonly message = el("p", { class: "note", "data-testid": "keys-message", role: "status" });
  readonly shown = el("div", { "data-testid": "new-token" });
  readonly list = el("div");

  private fail(err: unknown): void {
    this.message.className = "note error";
    this.message.textContent =
      err instanceof GraphQLFailure && err.code === "SCOPE_METHOD"
        ? "This session's token has a scope, so it cannot manage keys: sign in with an unrestricted token."
        : `Failed: ${(err as Error).message}`;
  }

  private reveal(token: string, what: string): void {
    this.shown.replaceChildren(
      el(
        "div",
        { class: "card reveal" },
        el("p", {}, `${what} Copy it now: it is shown this once and stored only as its hash.`),
        secretBox(token, "new-token-value", "the new key"),
      ),
    );
  }

  async refresh(): Promise<void> {
    const { account } = await query(DashboardKeysDocument, {});
    this.list.replaceChildren(
      table(
        "keys-table",
        ["Key", "Label", "State", "Scope", ""],
        account.tokens.map((t) => [
          `${t.hint}${t.current ? " (this session)" : ""}`,
          t.label ?? "",
          t.state === "LIVE" && t.expiresAt
            ? `live until ${t.expiresAt.slice(0, 16).replace("T", " ")}`
            : t.state.toLowerCase(),
          scopeText(t.scope),
          t.state === "LIVE" ? this.actions(t) : "",
        ]),
        "No keys",
        "Keys",
        true,
      ),
    );
  }

  /** Runs an action, then shows the list afresh (or what failed). */
  private run(work: () => Promise<void>): () => void {
    return () => {
      this.message.className = "note";
      this.message.textContent = "";
      work()
        .then(() => this.refresh())
        .catch((err: unknown) => this.fail(err));
    };
  }

  private actions(t: DashboardTokenFragment): HTMLElement {
    const restrict = el(
      "form",
      { class: "scope-form", "data-testid": `restrict-${t.id}` },
      ...scopeFields(t.scope),
      el("button", { type: "submit", class: "primary" }, "Save scope"),
    );
    restrict.addEventListener("submit", (e) => {
      e.preventDefault();
      this.run(async () => {
        await query(DashboardRestrictKeyDocument, { id: t.id, scope: scopeFrom(restrict) });
        this.message.textContent = `Scope of ${t.hint} saved.`;
      })();
    });
    const rotate = el(
      "button",
      { type: "button", "data-testid": `rotate-${t.id}`, "aria-label": `Rotate ${t.hint}` },
      "Rotate",
    );
    rotate.addEventListener(
      "click",
      this.run(async () => {
        const r = await query(DashboardRotateKeyDocument, { id: t.id, graceSeconds: 86_400 });
        this.reveal(
          r.rotateToken.token,
          `New key replacing ${t.hint}, which works for 24 more hours.`,
        );
      }),
    );
    const revoke = el(
      "button",
      {
        type: "button",
        class: "danger",
        "data-testid": `revoke-${t.id}`,
        "aria-label": `Revoke ${t.hint}`,
      },
      "Revoke",
    );
    revoke.addEventListener(
      "click",
      this.run(async () => {
        if (!confirm(`Revoke ${t.hint}? Its next request gets 401.`)) return;
        await query(DashboardRevokeKeyDocument, { id: t.id });
        this.message.textContent = `${t.hint} revoked.`;
      }),
    );
    const details = el("details", { class: "restrict" }, el("summary", {}, "Restrict"), restrict);
    return el("div", { class: "actions" }, rotate, revoke, details);
  }

  createForm(): HTMLFormElement {
    const create = el(
      "form",
      { class: "scope-form", "data-testid": "create-key" },
      labelled(
        "Name (optional)",
        el("input", {
          name: "label",
          maxlength: "100",
          placeholder: "phone app",
          autocomplete: "off",
          "data-testid": "key-label",
        }),
        "So that you can tell your keys apart in this list.",
      ),
      ...scopeFields(null),
      el(
        "p",
        { class: "note" },
        "Leave the allowed lists empty for a key that works everywhere your account does.",
      ),
      el(
        "button",
        { type: "submit", class: "primary", "data-testid": "create-key-submit" },
        "Create key",
      ),
    );
    create.addEventListener("submit", (e) => {
      e.preventDefault();
      this.run(async () => {
        const label = String(new FormData(create).get("label") ?? "").trim();
        const r = await query(DashboardCreateKeyDocument, {
          label: label || null,
          scope: scopeFrom(create),
        });
        this.reveal(r.createToken.token, `New key ${r.createToken.info.hint}.`);
        create.reset();
      })();
    });
    return create;
  }
}
