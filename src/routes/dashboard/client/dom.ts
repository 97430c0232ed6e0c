// What every part of the dashboard page shares: the typed GraphQL call and small DOM helpers.
import type { TypedDocumentNode } from "@graphql-typed-document-node/core";
import { print } from "graphql";

export class GraphQLFailure extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

/** One operation against /dashboard/graphql with the session cookie; errors throw, coded. */
export async function query<R, V>(document: TypedDocumentNode<R, V>, variables: V): Promise<R> {
  const res = await fetch("/dashboard/graphql", {
    method: "POST",
    credentials: "same-origin",
    headers: { "content-type": "application/json", accept: "application/graphql-response+json" },
    body: JSON.stringify({ query: print(document), variables }),
  });
  if (res.status === 401) {
    location.assign("/dashboard");
    throw new Error("signed out");
  }
  const body = (await res.json()) as {
    data?: R | null;
    errors?: { message: string; extensions?: { code?: string } }[];
  };
  const error = body.errors?.[0];
  if (error || !body.data) {
    throw new GraphQLFailure(error?.message ?? `HTTP ${res.status}`, error?.extensions?.code);
  }
  return body.data;
}

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  node.append(...children);
  return node;
}

export const fmt = (n: number) => n.toLocaleString("en-US");
export const day = (iso: string) => iso.slice(0, 10);

let ids = 0;
/** An id unique in the page, for tying a hint to its field. */
export const uid = (prefix: string) => `${prefix}-${++ids}`;

/**
 * A form field: a human label, the control, and a hint under it that the control is described by
 * (screen readers read it after the label).
 */
export function labelled(
  text: string,
  control: HTMLInputElement | HTMLSelectElement,
  hint?: string,
): HTMLLabelElement {
  const label = el("label", { class: "field" }, el("span", { class: "label" }, text), control);
  if (hint) {
    const id = uid("hint");
    control.setAttribute("aria-describedby", id);
    label.append(el("small", { id, class: "hint" }, hint));
  }
  return label;
}

/**
 * A secret shown once, with a Copy button beside it. The button says "Copied" for a while
 * after copying; where the clipboard is out of reach (a page not served over HTTPS), it
 * selects the text instead, so that the reader copies it by hand.
 */
export function secretBox(value: string, testId: string, what: string): HTMLElement {
  const code = el("code", { "data-testid": testId }, value);
  const button = el(
    "button",
    {
      type: "button",
      class: "copy",
      "data-testid": `copy-${testId}`,
      "aria-label": `Copy ${what}`,
    },
    "Copy",
  );
  let reset: ReturnType<typeof setTimeout> | undefined;
  const say = (text: string, state: string) => {
    button.textContent = text;
    button.dataset.state = state;
    clearTimeout(reset);
    reset = setTimeout(() => {
      button.textContent = "Copy";
      delete button.dataset.state;
    }, 4000);
  };
  button.addEventListener("click", () => {
    const select = () => {
      getSelection()?.selectAllChildren(code);
      say("Selected: press Ctrl+C", "selected");
    };
    if (!navigator.clipboard) return select();
    navigator.clipboard.writeText(value).then(() => say("Copied ✓", "copied"), select);
  });
  return el("div", { class: "secret" }, code, button);
}

/** Marks a scroller whose content is wider than it, so the page shows a cue to scroll it. */
function cueOverflow(box: HTMLElement): void {
  const check = () => {
    const more = box.scrollWidth - box.clientWidth > 1;
    box.classList.toggle("overflowing", more);
    const end = box.scrollLeft + box.clientWidth >= box.scrollWidth - 1;
    box.classList.toggle("at-end", end);
  };
  const watch = new ResizeObserver(check);
  watch.observe(box);
  // The table grows as a row's details open, and the box does not.
  if (box.firstElementChild) watch.observe(box.firstElementChild);
  box.addEventListener("scroll", check, { passive: true });
}

/**
 * A table inside a scroller: on a phone a wide table scrolls by itself, never the page. A
 * stacked table instead shows each row as a block of "column: value" lines there.
 */
export function table(
  testId: string,
  head: string[],
  rows: (string | number | Node)[][],
  empty = "No calls in this cycle",
  caption = "Table",
  stacked = false,
): HTMLDivElement {
  const box = el(
    "div",
    { class: "scroll", tabindex: "0", role: "region", "aria-label": caption },
    el(
      "table",
      { "data-testid": testId, ...(stacked ? { class: "stack" } : {}) },
      el("thead", {}, el("tr", {}, ...head.map((h) => el("th", {}, h)))),
      el(
        "tbody",
        {},
        ...(rows.length === 0
          ? [el("tr", {}, el("td", { colspan: String(head.length), class: "empty" }, empty))]
          : rows.map((r) =>
              el(
                "tr",
                {},
                ...r.map((c, i) =>
                  el(
                    "td",
                    {
                      "data-label": head[i] ?? "",
                      ...(typeof c === "number" ? { class: "num" } : {}),
                    },
                    typeof c === "number" ? fmt(c) : c,
                  ),
                ),
              ),
            )),
      ),
    ),
  );
  cueOverflow(box);
  return el(
    "div",
    { class: "table-wrap" },
    box,
    el("p", { class: "scroll-cue" }, "Scroll sideways for more"),
  );
}
