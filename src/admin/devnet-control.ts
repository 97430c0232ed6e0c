import type { FastifyReply } from "fastify";
import { NETWORK_NAMES, type NetworkName } from "../config/schema.ts";
import { gatewayError } from "../errors/codes.ts";
import { plainFailure, sendReply } from "../http/reply.ts";
import type { App } from "../metering/context.ts";

/** A block as a chain watcher names it. */
export interface BlockRef {
  height: number;
  hash: string;
}

/** What one operation did to the best chain: blocks left (tip first) and joined (lowest first). */
export interface ChainChange {
  tip: BlockRef;
  connected: BlockRef[];
  disconnected: BlockRef[];
}

/**
 * What this endpoint drives on one network: devnet's block producer (src/devnet/block-producer.ts)
 * is one. Declared here because the gateway's code does not depend on devnet; the entry point
 * (main.ts) hands devnet's producers over.
 */
export interface DevnetBlocks {
  mine(count: number): ChainChange;
  /** The change, or why devnet cannot take `depth` blocks off. */
  reorg(depth: number): ChainChange | { refused: string };
}

/** Most blocks one `devnet mine` or `devnet reorg` may produce: a few seconds of work at most. */
export const DEVNET_BLOCKS_MAX = 1_000;

/**
 * The in-process devnet each gateway runs beside it, by gateway. devnet starts before the
 * gateway and is handed to it once both run (main.ts), so it is kept here rather than in App,
 * which is built in app.ts for every store and upstream kind.
 */
const producersOf = new WeakMap<App, ReadonlyMap<NetworkName, DevnetBlocks>>();

/** Lets /admin/devnet/* reach `producers` (devnet's networks) through this gateway. */
export function attachDevnet(app: App, producers: ReadonlyMap<NetworkName, DevnetBlocks>): void {
  producersOf.set(app, producers);
}

/** Whether /admin/devnet/* exists: only while this gateway runs devnet beside it. */
export function runsDevnet(app: App): boolean {
  return (producersOf.get(app)?.size ?? 0) > 0;
}

export type DevnetAction = "mine" | "reorg";

function positive(value: unknown, fallback: number): number | null {
  if (value === undefined) return fallback;
  return Number.isSafeInteger(value) && (value as number) >= 1 ? (value as number) : null;
}

/**
 * POST /admin/devnet/mine `{"network": "regtest", "blocks": 1}` and /admin/devnet/reorg
 * `{"network": "regtest", "depth": 1}`: the change to the best chain, as a chain watcher will
 * announce it (tip, connected blocks lowest first, disconnected blocks tip first).
 */
export function runDevnetAction(app: App, action: DevnetAction, body: string, reply: FastifyReply) {
  let input: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(body === "" ? "{}" : body);
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
      throw new SyntaxError();
    input = parsed as Record<string, unknown>;
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    return refuse(reply, "BAD_REQUEST", "expected a JSON object");
  }
  const network = input.network ?? "regtest";
  if (typeof network !== "string" || !(NETWORK_NAMES as readonly string[]).includes(network)) {
    return refuse(reply, "BAD_REQUEST", `network: one of ${NETWORK_NAMES.join(", ")}`);
  }
  const producer = producersOf.get(app)?.get(network as NetworkName);
  if (!producer) return refuse(reply, "NOT_FOUND", `devnet does not serve ${network} here`);
  const key = action === "mine" ? "blocks" : "depth";
  const count = positive(input[key], 1);
  if (count === null || count + (action === "reorg" ? 1 : 0) > DEVNET_BLOCKS_MAX) {
    return refuse(
      reply,
      "BAD_REQUEST",
      `${key}: an integer from 1 to ${DEVNET_BLOCKS_MAX - (action === "reorg" ? 1 : 0)}`,
    );
  }
  const change = action === "mine" ? producer.mine(count) : producer.reorg(count);
  if ("refused" in change) return refuse(reply, "BAD_REQUEST", change.refused);
  app.log.info(
    {
      network,
      action,
      height: change.tip.height,
      connected: change.connected.length,
      disconnected: change.disconnected.length,
    },
    "devnet: blocks produced on command",
  );
  return sendReply(reply, { status: 200, body: { network, ...change } });
}

function refuse(reply: FastifyReply, code: "BAD_REQUEST" | "NOT_FOUND", message: string) {
  return sendReply(reply, plainFailure(gatewayError(code, message)));
}
