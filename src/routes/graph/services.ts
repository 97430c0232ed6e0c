import type { CallContext, MeterServices } from "../../billing/metering/context.ts";
import type { TxStore } from "../../cache/tx-store.ts";
import type { NetworkName } from "../../config/schema.ts";
import type { IndexerPool } from "../../upstreams/indexer/pool.ts";

/** What the graph route uses of a running gateway. */
export interface GraphServices extends MeterServices {
  /** Each network's indexer pool. */
  indexers: ReadonlyMap<NetworkName, IndexerPool>;
  /** Followed for reorganisations: an answer about final blocks may be kept. */
  txCache: TxStore;
}

export type GraphContext = CallContext<GraphServices>;
