import {
  addressActivityOf,
  confirmationsOf,
  type EventSource,
  feesOf,
  newBlocks,
} from "../events/sources.ts";
import type { WebhookServices } from "./services.ts";
import type { Endpoint } from "./store.ts";

/** The event source an endpoint follows, or null when its network has no node to ask now. */
export function sourceFor(
  app: Pick<WebhookServices, "nodes">,
  endpoint: Endpoint,
): EventSource<unknown> | null {
  const pool = app.nodes.get(endpoint.network);
  const { args } = endpoint;
  switch (endpoint.event) {
    case "newBlock":
      return newBlocks();
    case "transactionConfirmations":
      return pool ? confirmationsOf(pool, args.txid ?? "", args.until ?? 6) : null;
    case "mempoolFees":
      return pool ? feesOf(pool, args.targets ?? [1, 6, 144]) : null;
    case "addressActivity":
      return pool ? addressActivityOf(pool, args.address ?? "", endpoint.network) : null;
    default:
      return null;
  }
}
