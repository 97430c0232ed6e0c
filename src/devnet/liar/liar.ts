import type { NetworkName } from "../../config/schema.ts";
import type { Devnet } from "../devnet.ts";
import { startCoreLiar } from "./core-liar.ts";
import { startElectrumLiar } from "./electrum-liar.ts";
import { LyingChain } from "./lying-chain.ts";
import type { LiarOptions } from "./options.ts";

export type { LiarOptions } from "./options.ts";

/** A lying Bitcoin Core and Electrum server in front of one network's devnet upstreams. */
export interface Liar {
  /** A Bitcoin Core to configure as an upstream; the credentials are devnet Core's own. */
  core: { url: string; user: string; password: string };
  /** An Electrum server (TCP) to configure as an upstream. */
  electrum: { url: string };
  /**
   * The lies from now on, replacing the ones before ({}: honest); the Electrum server announces
   * its tip, so headers subscribers hear the new lies at once.
   */
  set(options: LiarOptions): void;
  close(): Promise<void>;
}

/**
 * Starts a liar in front of `network`'s devnet Core and Electrum server, on ports of its own
 * (port 0), telling `options`' lies (options.ts) about the chain devnet serves there.
 */
export async function startLiar(
  devnet: Devnet,
  network: NetworkName,
  options: LiarOptions = {},
): Promise<Liar> {
  const core = devnet.cores.get(network);
  const electrum = devnet.electrum.get(network);
  const producer = devnet.producers.get(network);
  if (!core || !electrum || !producer) throw new Error(`devnet does not serve ${network}`);
  let lies = options;
  const chain = new LyingChain(producer.chain, () => lies);
  const coreLiar = await startCoreLiar(core.url, chain, () => lies);
  const electrumLiar = await startElectrumLiar(electrum.host, electrum.port, chain, () => lies);
  return {
    core: { url: coreLiar.url, user: core.user, password: core.password },
    electrum: { url: electrumLiar.url },
    set(next) {
      lies = next;
      // Headers subscribers hear the tip as the new lies tell it, as after a block.
      electrum.announceTip();
    },
    async close() {
      await Promise.all([coreLiar.close(), electrumLiar.close()]);
    },
  };
}
