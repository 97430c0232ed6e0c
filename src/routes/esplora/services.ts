import type { CallContext, MeterServices } from "../../billing/metering/context.ts";
import type { NetworkName } from "../../config/schema.ts";
import type { EsploraPool } from "../../upstreams/esplora/pool.ts";

/** What the Esplora route uses of a running gateway. */
export interface EsploraServices extends MeterServices {
  /** Each network's Esplora servers. */
  esplora: ReadonlyMap<NetworkName, EsploraPool>;
}

export type EsploraContext = CallContext<EsploraServices>;
