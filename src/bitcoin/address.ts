import { bech32, bech32m, createBase58check } from "@scure/base";
import { sha256 } from "./hash.ts";
import { NETWORKS, type Network } from "./network.ts";
import {
  OP_0,
  OP_1,
  OP_CHECKSIG,
  OP_DUP,
  OP_EQUAL,
  OP_EQUALVERIFY,
  OP_HASH160,
} from "./script-ops.ts";
import { type Solution, solve } from "./solver.ts";

const base58check = createBase58check(sha256);

export function encodeBase58Address(version: number, hash: Uint8Array): string {
  const payload = new Uint8Array(1 + hash.length);
  payload[0] = version;
  payload.set(hash, 1);
  return base58check.encode(payload);
}

/** BIP173 (bech32) for version 0, BIP350 (bech32m) for versions 1..16. */
export function encodeSegwitAddress(hrp: string, version: number, program: Uint8Array): string {
  const words = [version, ...bech32.toWords(program)];
  return version === 0 ? bech32.encode(hrp, words) : bech32m.encode(hrp, words);
}

/**
 * Core's ExtractDestination + EncodeDestination for a solved script. Bare pubkey scripts get no
 * address (ScriptToUniv drops it), nor do multisig, nulldata and nonstandard scripts.
 */
export function solutionToAddress(sol: Solution, network: Network): string | undefined {
  const p = NETWORKS[network];
  switch (sol.type) {
    case "pubkeyhash":
      return encodeBase58Address(p.pubkeyHash, sol.hash);
    case "scripthash":
      return encodeBase58Address(p.scriptHash, sol.hash);
    case "witness_v0_keyhash":
    case "witness_v0_scripthash":
      return encodeSegwitAddress(p.bech32Hrp, 0, sol.hash);
    case "witness_v1_taproot":
      return encodeSegwitAddress(p.bech32Hrp, 1, sol.program);
    case "witness_unknown":
      return encodeSegwitAddress(p.bech32Hrp, sol.version, sol.program);
    case "anchor":
      return encodeSegwitAddress(p.bech32Hrp, 1, Uint8Array.of(0x4e, 0x73));
    default:
      return undefined;
  }
}

export function scriptToAddress(script: Uint8Array, network: Network): string | undefined {
  return solutionToAddress(solve(script), network);
}

function concat(...parts: (number | Uint8Array)[]): Uint8Array {
  const len = parts.reduce<number>((n, p) => n + (typeof p === "number" ? 1 : p.length), 0);
  const out = new Uint8Array(len);
  let i = 0;
  for (const p of parts) {
    if (typeof p === "number") out[i++] = p;
    else {
      out.set(p, i);
      i += p.length;
    }
  }
  return out;
}

function decodeSegwit(address: string, hrp: string): Uint8Array | null {
  const lower = address.toLowerCase();
  if (!lower.startsWith(`${hrp}1`)) return null;
  for (const [coder, encoding] of [
    [bech32, "bech32"],
    [bech32m, "bech32m"],
  ] as const) {
    let decoded: { prefix: string; words: number[] };
    try {
      decoded = coder.decode(address as `${string}1${string}`, 90);
    } catch {
      continue;
    }
    if (decoded.prefix !== hrp || decoded.words.length === 0) return null;
    const version = decoded.words[0]!;
    if (version > 16) return null;
    // BIP350: v0 must be bech32, v1+ bech32m.
    if ((version === 0) !== (encoding === "bech32")) return null;
    let program: Uint8Array;
    try {
      program = Uint8Array.from(bech32.fromWords(decoded.words.slice(1)));
    } catch {
      return null;
    }
    if (program.length < 2 || program.length > 40) return null;
    if (version === 0 && program.length !== 20 && program.length !== 32) return null;
    return concat(version === 0 ? OP_0 : OP_1 + version - 1, program.length, program);
  }
  return null;
}

/** Core's DecodeDestination + GetScriptForDestination: the scriptPubKey an address pays, or null. */
export function addressToScript(address: string, network: Network): Uint8Array | null {
  const p = NETWORKS[network];
  const segwit = decodeSegwit(address, p.bech32Hrp);
  if (segwit !== null) return segwit;
  let payload: Uint8Array;
  try {
    payload = base58check.decode(address);
  } catch {
    return null;
  }
  if (payload.length !== 21) return null;
  const hash = payload.subarray(1);
  if (payload[0] === p.pubkeyHash) {
    return concat(OP_DUP, OP_HASH160, 20, hash, OP_EQUALVERIFY, OP_CHECKSIG);
  }
  if (payload[0] === p.scriptHash) return concat(OP_HASH160, 20, hash, OP_EQUAL);
  return null;
}
