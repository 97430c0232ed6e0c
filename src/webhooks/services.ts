import type { MeterServices } from "../billing/metering/context.ts";
import type { NetworkName } from "../config/schema.ts";
import type { ChainEvents } from "../events/chain-events.ts";
import type { BitcoinCorePool } from "../upstreams/bitcoin-core/pool.ts";
import type { TargetPolicy } from "./targets.ts";

/** What webhooks use of a running gateway: deliveries are metered calls. */
export interface WebhookServices extends MeterServices {
  /** Blocks connected and disconnected: what the dispatcher turns into messages. */
  events: ChainEvents;
  /** Each network's node, which the event sources ask. */
  nodes: ReadonlyMap<NetworkName, BitcoinCorePool>;
  /** Where webhook endpoints may point: checked at registration and on every connection. */
  webhookTargets: TargetPolicy;
}
