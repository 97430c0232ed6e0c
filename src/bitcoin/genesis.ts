import type { Block } from "./block.ts";
import { assembleBlock } from "./block-build.ts";
import { fromHex } from "./hex.ts";
import type { Network } from "./network.ts";
import { concatBytes, pushBytes, pushInt, scriptNum } from "./script-build.ts";
import { serializeTransaction } from "./serialize.ts";
import { parseTransaction } from "./transaction.ts";

const COIN = 100_000_000n;
const OP_CHECKSIG = 0xac;

interface GenesisParams {
  timestamp: string;
  /** The output's public key (pushed, then OP_CHECKSIG). */
  pubkey: string;
  time: number;
  nonce: number;
  bits: number;
  version: number;
  reward: bigint;
}

const SATOSHI_TIMES = "The Times 03/Jan/2009 Chancellor on brink of second bailout for banks";
const SATOSHI_KEY =
  "04678afdb0fe5548271967f1a67130b7105cd6a828e03909a67962e0ea1f61deb649f6bc3f4cef38c4f35504e51ec112de5c384df7ba0b8d578a4c702b6bf11d5f";

/**
 * Core's kernel/chainparams.cpp CreateGenesisBlock arguments per chain. Mainnet, testnet3,
 * signet and regtest share Satoshi's message and key; testnet4 has its own message (a mainnet
 * block hash) and a key of 33 zero bytes.
 */
export const GENESIS: Readonly<Record<Network, GenesisParams>> = {
  mainnet: {
    timestamp: SATOSHI_TIMES,
    pubkey: SATOSHI_KEY,
    time: 1231006505,
    nonce: 2083236893,
    bits: 0x1d00ffff,
    version: 1,
    reward: 50n * COIN,
  },
  testnet: {
    timestamp: SATOSHI_TIMES,
    pubkey: SATOSHI_KEY,
    time: 1296688602,
    nonce: 414098458,
    bits: 0x1d00ffff,
    version: 1,
    reward: 50n * COIN,
  },
  testnet4: {
    timestamp: "03/May/2024 000000000000000000001ebd58c244970b3aa9d783bb001011fbe8ea8e98e00e",
    pubkey: "00".repeat(33),
    time: 1714777860,
    nonce: 393743547,
    bits: 0x1d00ffff,
    version: 1,
    reward: 50n * COIN,
  },
  signet: {
    timestamp: SATOSHI_TIMES,
    pubkey: SATOSHI_KEY,
    time: 1598918400,
    nonce: 52613770,
    bits: 0x1e0377ae,
    version: 1,
    reward: 50n * COIN,
  },
  regtest: {
    timestamp: SATOSHI_TIMES,
    pubkey: SATOSHI_KEY,
    time: 1296688602,
    nonce: 2,
    bits: 0x207fffff,
    version: 1,
    reward: 50n * COIN,
  },
};

/**
 * The genesis block of `network`, built as CreateGenesisBlock builds it: a coinbase whose
 * scriptSig is `486604799 4 <timestamp>` (the first two pushes are historical: nBits of the
 * time and an extra nonce), one output paying the reward to `<pubkey> OP_CHECKSIG`, a zero
 * previous hash. Built rather than shipped, so each chain's hash is checked against Core's.
 */
export function genesisBlock(network: Network): Block {
  const p = GENESIS[network];
  const scriptSig = concatBytes(
    pushInt(486604799),
    // CScriptNum(4) is pushed as data (01 04), not as OP_4.
    pushBytes(scriptNum(4)),
    pushBytes(new TextEncoder().encode(p.timestamp)),
  );
  const coinbase = parseTransaction(
    serializeTransaction({
      version: 1,
      locktime: 0,
      inputs: [
        {
          prevTxid: "00".repeat(32),
          prevTxidBytes: new Uint8Array(32),
          vout: 0xffffffff,
          scriptSig,
          sequence: 0xffffffff,
          witness: [],
        },
      ],
      outputs: [
        {
          value: p.reward,
          scriptPubKey: concatBytes(pushBytes(fromHex(p.pubkey)), Uint8Array.of(OP_CHECKSIG)),
        },
      ],
    }),
  );
  return assembleBlock(
    {
      version: p.version,
      previousblockhash: "00".repeat(32),
      time: p.time,
      bits: p.bits,
      nonce: p.nonce,
    },
    [coinbase],
  );
}
