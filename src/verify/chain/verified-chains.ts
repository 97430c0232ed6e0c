import type { Network } from "../../bitcoin/network.ts";
import type { VerifiedChain } from "./verified-chain.ts";

/** Each network's verified chain, for the services that check answers against one. */
export interface VerifiedChains {
  /** The network's chain; undefined where verification is off for it. */
  get(network: Network): VerifiedChain | undefined;
}
