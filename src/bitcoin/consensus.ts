import { COIN } from "./amount.ts";
import type { Network } from "./network.ts";

/** Core's consensus.nSubsidyHalvingInterval per chain (regtest halves every 150 blocks). */
export const HALVING_INTERVAL: Readonly<Record<Network, number>> = {
  mainnet: 210_000,
  testnet: 210_000,
  testnet4: 210_000,
  signet: 210_000,
  regtest: 150,
};

/** Core's consensus.SegwitHeight per chain: from it on, blocks carry a witness commitment. */
export const SEGWIT_HEIGHT: Readonly<Record<Network, number>> = {
  mainnet: 481_824,
  testnet: 834_624,
  testnet4: 1,
  signet: 1,
  regtest: 0,
};

/** Core's GetBlockSubsidy: 50 BTC halved every interval, nothing after 64 halvings. */
export function blockSubsidy(height: number, network: Network): bigint {
  const halvings = Math.floor(height / HALVING_INTERVAL[network]);
  if (halvings >= 64) return 0n;
  return (50n * COIN) >> BigInt(halvings);
}

/** Core's MAX_BLOCK_WEIGHT. */
export const MAX_BLOCK_WEIGHT = 4_000_000;
