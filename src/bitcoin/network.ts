/** Networks whose addresses we render; Core's `-chain=` names map onto them via networkFromChain. */
export type Network = "mainnet" | "testnet" | "testnet4" | "signet" | "regtest";

export interface NetworkParams {
  /** Base58 version byte of P2PKH addresses. */
  readonly pubkeyHash: number;
  /** Base58 version byte of P2SH addresses. */
  readonly scriptHash: number;
  /** Human-readable part of segwit addresses. */
  readonly bech32Hrp: string;
}

/** Core's chainparams.cpp base58Prefixes and bech32_hrp. */
export const NETWORKS: Readonly<Record<Network, NetworkParams>> = {
  mainnet: { pubkeyHash: 0x00, scriptHash: 0x05, bech32Hrp: "bc" },
  testnet: { pubkeyHash: 0x6f, scriptHash: 0xc4, bech32Hrp: "tb" },
  testnet4: { pubkeyHash: 0x6f, scriptHash: 0xc4, bech32Hrp: "tb" },
  signet: { pubkeyHash: 0x6f, scriptHash: 0xc4, bech32Hrp: "tb" },
  regtest: { pubkeyHash: 0x6f, scriptHash: 0xc4, bech32Hrp: "bcrt" },
};

/** Core's chain names (getblockchaininfo `chain`, key_io vectors) to ours. */
export function networkFromChain(chain: string): Network {
  switch (chain) {
    case "main":
    case "mainnet":
      return "mainnet";
    case "test":
    case "testnet":
    case "testnet3":
      return "testnet";
    case "testnet4":
      return "testnet4";
    case "signet":
      return "signet";
    case "regtest":
      return "regtest";
    default:
      throw new Error(`unknown chain ${JSON.stringify(chain)}`);
  }
}
