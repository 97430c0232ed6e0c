import type { CallContext, MeterServices } from "../../billing/metering/context.ts";
import type { TxStore } from "../../cache/tx-store.ts";
import type { NetworkName } from "../../config/schema.ts";
import type { BitcoinCorePool } from "../../upstreams/bitcoin-core/pool.ts";

/** What the node route uses of a running gateway. */
export interface NodeServices extends MeterServices {
  /** Each network's Bitcoin Core pool. */
  nodes: ReadonlyMap<NetworkName, BitcoinCorePool>;
  /** The finality-aware response cache: confirmed transactions answered without the node. */
  txCache: TxStore;
}

export type NodeContext = CallContext<NodeServices>;
