import type { TypedDocumentNode } from "@graphql-typed-document-node/core";
import { print } from "graphql";

export interface GraphQLResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: {
    data?: T | null;
    errors?: {
      message: string;
      path?: (string | number)[];
      extensions?: Record<string, unknown>;
    }[];
    extensions?: { cost?: Record<string, unknown> };
  };
}

/** POSTs a query the way a GraphQL-over-HTTP client does. */
export async function gql<T = Record<string, unknown>>(
  url: string,
  query: string,
  variables: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<GraphQLResponse<T>> {
  const res = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/graphql-response+json, application/json",
      ...headers,
    },
    body: JSON.stringify({ query, variables }),
  });
  return {
    status: res.status,
    headers: res.headers,
    body: (await res.json()) as GraphQLResponse<T>["body"],
  };
}

/** A typed call: result and variables types come from the generated document. */
export async function execute<R, V extends Record<string, unknown>>(
  url: string,
  document: TypedDocumentNode<R, V>,
  variables: V,
): Promise<GraphQLResponse<R>> {
  return gql<R>(url, print(document), variables);
}
