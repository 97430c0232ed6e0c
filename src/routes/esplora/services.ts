import type { CallContext, MeterServices } from "../../billing/metering/context.ts";
import type { NetworkName } from "../../config/schema.ts";
import type { BitcoinCorePool } from "../../upstreams/bitcoin-core/pool.ts";
import type { EsploraPool } from "../../upstreams/esplora/pool.ts";

/** What the Esplora route uses of a running gateway. */
export interface EsploraServices extends MeterServices {
  /** Each network's Esplora servers. */
  esplora: ReadonlyMap<NetworkName, EsploraPool>;
  /** Each network's Core nodes: mempool's `/v1/block…` extras need getblockstats and the header. */
  nodes: ReadonlyMap<NetworkName, BitcoinCorePool>;
}

export type EsploraContext = CallContext<EsploraServices>;
