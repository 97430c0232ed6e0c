import { solutionToAddress } from "./address.ts";
import { toHex } from "./hex.ts";
import type { Network } from "./network.ts";
import { type Solution, solve } from "./solver.ts";
import { isValidXOnlyPubkey } from "./xonly.ts";

const INPUT_CHARSET =
  "0123456789()[],'/*abcdefgh@:$%{}IJKLMNOPQRSTUVWXYZ&+-.;<=>?!^_|~ijklmnopqrstuvwxyzABCDEFGH`#\"\\ ";
const CHECKSUM_CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";

const INPUT_POS = new Int16Array(128).fill(-1);
for (let i = 0; i < INPUT_CHARSET.length; i++) INPUT_POS[INPUT_CHARSET.charCodeAt(i)] = i;

// The BIP380 generator constants split into two 20-bit halves: the checksum state is a 40-bit
// number, and 20-bit halves stay small integers (no heap numbers) in V8.
const G0H = 0xf5dee;
const G0L = 0x51989;
const G1H = 0xa9fdc;
const G1L = 0xa3312;
const G2H = 0x1bab1;
const G2L = 0x0e32d;
const G3H = 0x3706b;
const G3L = 0x1677a;
const G4H = 0x644d6;
const G4L = 0x26ffd;

/**
 * BIP380 descriptor checksum (Core's DescriptorChecksum), or "" when a character is outside the
 * descriptor charset.
 */
export function descriptorChecksum(desc: string): string {
  // The polymod step is inlined twice below (no closure): this runs for every output rendered.
  let hi = 0;
  let lo = 1;
  let cls = 0;
  let clscount = 0;
  const n = desc.length;
  // Symbols: each character's low 5 bits, a class symbol after every third character, a final
  // class symbol, then 8 zeros.
  const total = n + Math.floor(n / 3) + (n % 3 > 0 ? 1 : 0) + 8;
  let i = 0;
  for (let step = 0; step < total; step++) {
    let val: number;
    if (clscount === 3 || (i === n && clscount > 0)) {
      val = cls;
      cls = 0;
      clscount = 0;
    } else if (i < n) {
      const code = desc.charCodeAt(i++);
      const pos = code < 128 ? INPUT_POS[code]! : -1;
      if (pos < 0) return "";
      val = pos & 31;
      cls = cls * 3 + (pos >> 5);
      clscount++;
    } else {
      val = 0;
    }
    // c = hi·2^20 + lo; c0 = c >> 35; c = ((c & 0x7ffffffff) << 5) ^ val; then xor generators.
    const c0 = hi >> 15;
    hi = ((hi & 0x7fff) << 5) | (lo >> 15);
    lo = ((lo & 0x7fff) << 5) | val;
    if (c0 & 1) {
      hi ^= G0H;
      lo ^= G0L;
    }
    if (c0 & 2) {
      hi ^= G1H;
      lo ^= G1L;
    }
    if (c0 & 4) {
      hi ^= G2H;
      lo ^= G2L;
    }
    if (c0 & 8) {
      hi ^= G3H;
      lo ^= G3L;
    }
    if (c0 & 16) {
      hi ^= G4H;
      lo ^= G4L;
    }
  }
  lo ^= 1;
  const c = hi * 2 ** 20 + lo;
  let out = "";
  for (let j = 0; j < 8; j++) out += CHECKSUM_CHARSET[Math.floor(c / 2 ** (5 * (7 - j))) % 32];
  return out;
}

export function addChecksum(desc: string): string {
  return `${desc}#${descriptorChecksum(desc)}`;
}

/** Core's CPubKey::IsValidNonHybrid (sizes were already checked by the solver). */
function nonHybrid(key: Uint8Array): boolean {
  return key[0] === 0x02 || key[0] === 0x03 || key[0] === 0x04;
}

/**
 * Core's InferDescriptor at top level with no signing provider (what decoderawtransaction and
 * getrawtransaction print as scriptPubKey.desc): pk() for bare keys, multi() for bare multisig,
 * rawtr() for taproot outputs with a valid x-only key, addr() for anything with an address,
 * raw() for the rest. Without wallet keys there is never pkh()/wpkh()/sh()/wsh()/tr().
 */
export function inferDescriptorFromSolution(
  script: Uint8Array,
  sol: Solution,
  network: Network,
  scriptHex?: string,
): string {
  switch (sol.type) {
    case "pubkey":
      if (nonHybrid(sol.pubkey)) return addChecksum(`pk(${toHex(sol.pubkey)})`);
      break;
    case "multisig":
      if (sol.pubkeys.every(nonHybrid)) {
        return addChecksum(`multi(${sol.required},${sol.pubkeys.map(toHex).join(",")})`);
      }
      break;
    case "witness_v1_taproot":
      if (isValidXOnlyPubkey(sol.program)) return addChecksum(`rawtr(${toHex(sol.program)})`);
      break;
  }
  const address = solutionToAddress(sol, network);
  if (address !== undefined) return addChecksum(`addr(${address})`);
  return addChecksum(`raw(${scriptHex ?? toHex(script)})`);
}

export function inferDescriptor(script: Uint8Array, network: Network): string {
  return inferDescriptorFromSolution(script, solve(script), network);
}
