import type { AuthServices } from "../../access/authenticate.ts";
import type { CallContext, MeterServices } from "../../billing/metering/context.ts";
import type { ElectrumTxServices } from "../../cache/from-electrum.ts";
import type { ChainEvents } from "../../events/chain-events.ts";

/** What the Electrum route uses of a running gateway: its sockets authenticate themselves. */
export interface ElectrumServices extends MeterServices, AuthServices, ElectrumTxServices {
  /** New blocks, pushed to sessions subscribed to headers. */
  events: ChainEvents;
  /**
   * The port the TLS listener is bound to, set once it listens (server.features reports it);
   * null without one.
   */
  electrumTlsPort: number | null;
}

export type ElectrumContext = CallContext<ElectrumServices>;
