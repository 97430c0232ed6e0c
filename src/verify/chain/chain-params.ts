import { genesisBlock } from "../../bitcoin/genesis.ts";
import type { Network } from "../../bitcoin/network.ts";
import { POW_LIMIT } from "../../bitcoin/pow.ts";

/** What a header's checks need of a network's consensus (Core's kernel/chainparams.cpp). */
export interface ChainParams {
  readonly network: Network;
  readonly powLimit: bigint;
  /** nPowTargetSpacing: ten minutes everywhere. */
  readonly targetSpacingS: number;
  /** nPowTargetTimespan: two weeks everywhere. */
  readonly targetTimespanS: number;
  /** Testnets and regtest: a block 20 minutes after its parent may claim powLimit. */
  readonly allowMinDifficultyBlocks: boolean;
  /** Regtest: the target never changes. */
  readonly noRetargeting: boolean;
  /** Testnet4 (BIP94): retarget from the period's first block, and the timewarp rule. */
  readonly enforceBip94: boolean;
  /** Heights from which versions below 2, 3 and 4 are refused (BIP34, BIP66, BIP65). */
  readonly bip34Height: number;
  readonly bip66Height: number;
  readonly bip65Height: number;
}

const BASE = { targetSpacingS: 600, targetTimespanS: 14 * 24 * 60 * 60 };

/** Core's consensus parameters of each chain (regtest without `-test=bip94`). */
export const CHAIN_PARAMS: Readonly<Record<Network, ChainParams>> = {
  mainnet: {
    ...BASE,
    network: "mainnet",
    powLimit: POW_LIMIT.mainnet,
    allowMinDifficultyBlocks: false,
    noRetargeting: false,
    enforceBip94: false,
    bip34Height: 227_931,
    bip66Height: 363_725,
    bip65Height: 388_381,
  },
  testnet: {
    ...BASE,
    network: "testnet",
    powLimit: POW_LIMIT.testnet,
    allowMinDifficultyBlocks: true,
    noRetargeting: false,
    enforceBip94: false,
    bip34Height: 21_111,
    bip66Height: 330_776,
    bip65Height: 581_885,
  },
  testnet4: {
    ...BASE,
    network: "testnet4",
    powLimit: POW_LIMIT.testnet4,
    allowMinDifficultyBlocks: true,
    noRetargeting: false,
    enforceBip94: true,
    bip34Height: 1,
    bip66Height: 1,
    bip65Height: 1,
  },
  signet: {
    ...BASE,
    network: "signet",
    powLimit: POW_LIMIT.signet,
    allowMinDifficultyBlocks: false,
    noRetargeting: false,
    enforceBip94: false,
    bip34Height: 1,
    bip66Height: 1,
    bip65Height: 1,
  },
  regtest: {
    ...BASE,
    network: "regtest",
    powLimit: POW_LIMIT.regtest,
    allowMinDifficultyBlocks: true,
    noRetargeting: true,
    enforceBip94: false,
    bip34Height: 1,
    bip66Height: 1,
    bip65Height: 1,
  },
};

/** Blocks per difficulty period (DifficultyAdjustmentInterval). */
export function adjustmentInterval(p: ChainParams): number {
  return p.targetTimespanS / p.targetSpacingS;
}

const genesisMemo = new Map<Network, { hash: string; header: Uint8Array }>();

/** The network's genesis block header, built as chainparams builds it (consensus.hashGenesisBlock). */
export function genesisHeader(network: Network): { hash: string; header: Uint8Array } {
  let g = genesisMemo.get(network);
  if (!g) {
    const block = genesisBlock(network);
    g = { hash: block.hash, header: block.headerBytes };
    genesisMemo.set(network, g);
  }
  return g;
}
