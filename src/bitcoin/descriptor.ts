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

// BIP380 generators, split into two 20-bit halves (the checksum state is a 40-bit number; 20-bit
// halves stay small integers in V8) and pre-combined for every 5-bit value of the top bits.
const GENERATORS = [
  [0xf5dee, 0x51989],
  [0xa9fdc, 0xa3312],
  [0x1bab1, 0x0e32d],
  [0x3706b, 0x1677a],
  [0x644d6, 0x26ffd],
] as const;
const GEN_HI = new Int32Array(32);
const GEN_LO = new Int32Array(32);
for (let c0 = 0; c0 < 32; c0++) {
  for (let i = 0; i < 5; i++) {
    if ((c0 >> i) & 1) {
      GEN_HI[c0]! ^= GENERATORS[i]![0];
      GEN_LO[c0]! ^= GENERATORS[i]![1];
    }
  }
}

// Scratch buffer for the symbol stream; grown on demand (JS is single-threaded, so sharing is safe).
let symbols = new Uint8Array(512);

/**
 * BIP380 descriptor checksum (Core's DescriptorChecksum), or "" when a character is outside the
 * descriptor charset.
 */
export function descriptorChecksum(desc: string): string {
  const n = desc.length;
  const needed = n + Math.ceil(n / 3) + 8;
  if (symbols.length < needed) symbols = new Uint8Array(needed * 2);
  const sym = symbols;
  // Symbol stream: each character's low 5 bits, a class symbol after every third character (and
  // after a final partial group), then 8 zeros.
  let k = 0;
  let cls = 0;
  let clscount = 0;
  for (let i = 0; i < n; i++) {
    const code = desc.charCodeAt(i);
    const pos = code < 128 ? INPUT_POS[code]! : -1;
    if (pos < 0) return "";
    sym[k++] = pos & 31;
    cls = cls * 3 + (pos >> 5);
    if (++clscount === 3) {
      sym[k++] = cls;
      cls = 0;
      clscount = 0;
    }
  }
  if (clscount > 0) sym[k++] = cls;
  for (let j = 0; j < 8; j++) sym[k++] = 0;
  // PolyMod: c0 = c >> 35; c = ((c & 0x7ffffffff) << 5) ^ val ^ generators(c0), with c = hi·2^20 + lo.
  let hi = 0;
  let lo = 1;
  for (let i = 0; i < k; i++) {
    const c0 = hi >> 15;
    hi = (((hi & 0x7fff) << 5) | (lo >> 15)) ^ GEN_HI[c0]!;
    lo = (((lo & 0x7fff) << 5) | sym[i]!) ^ GEN_LO[c0]!;
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
 * `address` gives the solution's address when the caller has it already (it is the costly part).
 */
export function inferDescriptorFromSolution(
  script: Uint8Array,
  sol: Solution,
  network: Network,
  scriptHex?: string,
  address: () => string | undefined = () => solutionToAddress(sol, network),
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
  const addr = address();
  if (addr !== undefined) return addChecksum(`addr(${addr})`);
  return addChecksum(`raw(${scriptHex ?? toHex(script)})`);
}

export function inferDescriptor(script: Uint8Array, network: Network): string {
  return inferDescriptorFromSolution(script, solve(script), network);
}
