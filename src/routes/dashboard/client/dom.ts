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

/** A table inside a scroller: on a phone a wide table scrolls by itself, never the page. */
export function table(
  testId: string,
  head: string[],
  rows: (string | number | Node)[][],
  empty = "No calls in this cycle",
): HTMLDivElement {
  return el(
    "div",
    { class: "scroll" },
    el(
      "table",
      { "data-testid": testId },
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
                ...r.map((c) =>
                  el(
                    "td",
                    typeof c === "number" ? { class: "num" } : {},
                    typeof c === "number" ? fmt(c) : c,
                  ),
                ),
              ),
            )),
      ),
    ),
  );
}
