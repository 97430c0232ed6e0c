import type { FastifyReply } from "fastify";
import type { Logger } from "pino";
import { addressToScript } from "../../bitcoin/address.ts";
import { NETWORK_NAMES, type NetworkName } from "../../config/schema.ts";
import type { DevnetBlocks } from "../../events/chain-change.ts";
import { plainFailure, sendReply } from "../../http/reply.ts";
import { gatewayError } from "../../protocol/errors/codes.ts";

/** Most blocks one `devnet mine` or `devnet reorg` may produce: a few seconds of work at most. */
export const DEVNET_BLOCKS_MAX = 1_000;

/**
 * devnet's block producers by network, while this gateway runs devnet beside it (empty
 * otherwise). devnet starts before the gateway and is handed over once both run (main.ts), so the
 * composition root creates the map empty and the entry point fills it.
 */
export type DevnetProducers = Map<NetworkName, DevnetBlocks>;

/** Lets /admin/devnet/* reach `producers` (devnet's networks) through this gateway. */
export function attachDevnet(
  app: { devnetProducers: DevnetProducers },
  producers: ReadonlyMap<NetworkName, DevnetBlocks>,
): void {
  for (const [network, producer] of producers) app.devnetProducers.set(network, producer);
}

export type DevnetAction = "mine" | "reorg" | "pay";

function positive(value: unknown, fallback: number): number | null {
  if (value === undefined) return fallback;
  return Number.isSafeInteger(value) && (value as number) >= 1 ? (value as number) : null;
}

/**
 * POST /admin/devnet/mine `{"network": "regtest", "blocks": 1}` and /admin/devnet/reorg
 * `{"network": "regtest", "depth": 1}`: the change to the best chain, as a chain watcher will
 * announce it (tip, connected blocks lowest first, disconnected blocks tip first).
 */
export function runDevnetAction(
  devnet: { producers: DevnetProducers; log: Logger },
  action: DevnetAction,
  body: string,
  reply: FastifyReply,
) {
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
  const producer = devnet.producers.get(network as NetworkName);
  if (!producer) return refuse(reply, "NOT_FOUND", `devnet does not serve ${network} here`);
  if (action === "pay") return pay(producer, network as NetworkName, input, reply);
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
  devnet.log.info(
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

/** Most one `devnet pay` may pay: all bitcoins there can ever be. */
const PAY_SATS_MAX = 2_100_000_000_000_000;

/** POST /admin/devnet/pay `{"network": "regtest", "address": "bcrt1…", "sats": 50000}`: the txid. */
function pay(
  producer: DevnetBlocks,
  network: NetworkName,
  input: Record<string, unknown>,
  reply: FastifyReply,
) {
  const script = typeof input.address === "string" ? addressToScript(input.address, network) : null;
  if (!script) return refuse(reply, "BAD_REQUEST", `address: an address of ${network}`);
  const sats = input.sats;
  if (!Number.isSafeInteger(sats) || (sats as number) < 1 || (sats as number) > PAY_SATS_MAX) {
    return refuse(reply, "BAD_REQUEST", `sats: an integer from 1 to ${PAY_SATS_MAX}`);
  }
  const paid = producer.pay(script, sats as number);
  if ("refused" in paid) return refuse(reply, "BAD_REQUEST", paid.refused);
  return sendReply(reply, { status: 200, body: { network, txid: paid.txid } });
}

function refuse(reply: FastifyReply, code: "BAD_REQUEST" | "NOT_FOUND", message: string) {
  return sendReply(reply, plainFailure(gatewayError(code, message)));
}
