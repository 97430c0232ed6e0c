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

// The BIP380 generator constants, split into 8 high and 32 low bits: the checksum state is a
// 40-bit number and JS bitwise operators work on 32 bits.
const GEN_HI = [0xf5, 0xa9, 0x1b, 0x37, 0x64];
const GEN_LO = [0xdee51989, 0xfdca3312, 0xab10e32d, 0x06b1677a, 0x4d626ffd];

/**
 * BIP380 descriptor checksum (Core's DescriptorChecksum), or "" when a character is outside the
 * descriptor charset.
 */
export function descriptorChecksum(desc: string): string {
  let hi = 0;
  let lo = 1;
  const polymod = (val: number): void => {
    const c0 = hi >>> 3;
    hi = ((hi & 7) << 5) | (lo >>> 27);
    lo = ((lo << 5) | val) >>> 0;
    for (let i = 0; i < 5; i++) {
      if ((c0 >>> i) & 1) {
        hi ^= GEN_HI[i]!;
        lo = (lo ^ GEN_LO[i]!) >>> 0;
      }
    }
  };
  let cls = 0;
  let clscount = 0;
  for (let i = 0; i < desc.length; i++) {
    const code = desc.charCodeAt(i);
    const pos = code < 128 ? INPUT_POS[code]! : -1;
    if (pos < 0) return "";
    polymod(pos & 31);
    cls = cls * 3 + (pos >> 5);
    if (++clscount === 3) {
      polymod(cls);
      cls = 0;
      clscount = 0;
    }
  }
  if (clscount > 0) polymod(cls);
  for (let j = 0; j < 8; j++) polymod(0);
  lo = (lo ^ 1) >>> 0;
  const c = hi * 2 ** 32 + lo;
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
  return addChecksum(`raw(${toHex(script)})`);
}

export function inferDescriptor(script: Uint8Array, network: Network): string {
  return inferDescriptorFromSolution(script, solve(script), network);
}
