import type { NetworkName } from "../../src/config/schema.ts";
import { post, type TestGateway } from "../support/harness.ts";
import { balanceOf } from "../support/ledger.ts";

export type GraphBody = {
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
};

/** POSTs a query to the gateway's graph route. */
export function viaGateway(
  t: TestGateway,
  token: string,
  body: GraphBody | string,
  network: NetworkName = "mainnet",
) {
  return post(`${t.url}/graph/${network}/${token}`, body);
}

/** POSTs a query straight to devnet's indexer, with its admin secret. */
export async function viaIndexer(
  t: TestGateway,
  body: GraphBody | string,
  network: NetworkName = "mainnet",
) {
  const indexer = t.devnet.indexers.get(network)!;
  const res = await fetch(indexer.url, {
    method: "POST",
    headers: { "content-type": "application/json", "x-hasura-admin-secret": indexer.secret },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return {
    status: res.status,
    json: (await res.json()) as { data?: Record<string, unknown>; errors?: unknown[] },
  };
}

export async function available(t: TestGateway, accountId: number): Promise<number> {
  return (await balanceOf(t.gateway.app.db, accountId)).available;
}

export interface Cost {
  complexity: number;
  estimated: number;
  actual: number;
  charged: number;
  balance: number;
}

export type GraphAnswer = {
  data?: Record<string, unknown>;
  errors?: { message: string; extensions: Record<string, unknown> }[];
  extensions?: { cost: Cost };
};
