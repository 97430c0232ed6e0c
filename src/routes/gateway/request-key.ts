import type { IncomingMessage } from "node:http";
import type { NetworkName } from "../../config/schema.ts";

/**
 * What, besides the body, Yoga's answer to a request depends on — the network, what it may answer
 * in (Accept), CORS (Origin), how to read the body (Content-Type) — for a request whose answer may
 * be served without Yoga (a kept answer: answers/; a plan: query-plans/): a POST of JSON that is
 * not a dry run. null: any other request, which Yoga always executes.
 */
export function replyKey(network: NetworkName, req: IncomingMessage): string | null {
  if (req.method !== "POST") return null;
  const { headers } = req;
  const type = headers["content-type"] ?? "";
  if (!type.startsWith("application/json") || headers["x-dry-run"] !== undefined) return null;
  return `${network}\u0000${headers.accept ?? ""}\u0000${headers.origin ?? ""}\u0000${type}`;
}
