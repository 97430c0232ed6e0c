import { createRequire } from "node:module";
import type { Output } from "@bitcoinerlab/descriptors";
import { descriptorChecksum } from "./descriptor.ts";
import type { Network } from "./network.ts";

/** One address a descriptor stands for: its branch (null without one), index and script. */
export interface DerivedAddress {
  branch: number | null;
  index: number | null;
  address: string;
  scriptPubKey: Uint8Array;
}

/**
 * A watch-only descriptor, checked: `branches` are the values of its multipath step (`<0;1>`), or
 * [null] with none; `ranged` when it ends in `*` (then `at` needs an index).
 */
export interface ParsedDescriptor {
  branches: (number | null)[];
  ranged: boolean;
  at(branch: number | null, index: number | null): DerivedAddress;
}

/** Why a descriptor is refused; never the descriptor's own text (it may hold a private key). */
export class DescriptorRefusal extends Error {}

// Extended private keys of every version (xprv, tprv, yprv, zprv, uprv, vprv, Yprv, Zprv, Uprv,
// Vprv), and WIF private keys (51 or 52 base58 characters starting 5, K, L, 9 or c).
const XPRV = /[xtyzuvYZUV]prv[1-9A-HJ-NP-Za-km-z]{100,}/;
const WIF = /(?:^|[^1-9A-HJ-NP-Za-km-z])[5KL9c][1-9A-HJ-NP-Za-km-z]{50,51}(?![1-9A-HJ-NP-Za-km-z])/;
const MULTIPATH = /<(\d+(?:;\d+)+)>/;

/** How many branches a descriptor's multipath step (`<0;1>`) makes; 1 without one. */
export function descriptorBranchCount(text: string): number {
  const multipath = MULTIPATH.exec(text);
  return multipath ? multipath[1]!.split(";").length : 1;
}

type DescriptorsLibrary = typeof import("@bitcoinerlab/descriptors");
let library: DescriptorsLibrary | undefined;

/**
 * @bitcoinerlab/descriptors, loaded at the first descriptor parsed: evaluating it and its curve
 * library is a noticeable part of a process's start, which most processes (the CLI's, a gateway
 * never asked to scan) never need. It is CommonJS, so it loads synchronously.
 */
function descriptorsLibrary(): DescriptorsLibrary {
  library ??= createRequire(import.meta.url)("@bitcoinerlab/descriptors") as DescriptorsLibrary;
  return library;
}

function libraryNetwork(network: Network) {
  const { networks } = descriptorsLibrary();
  return network === "mainnet"
    ? networks.bitcoin
    : network === "regtest"
      ? networks.regtest
      : networks.testnet;
}

/**
 * Parses an output descriptor of `network` for scanning (@bitcoinerlab/descriptors derives the
 * addresses). Refused, with a reason that never quotes it: a bad checksum, a private key, a key
 * of another network, anything the library cannot parse.
 */
export function parseDescriptor(text: string, network: Network): ParsedDescriptor {
  const hash = text.indexOf("#");
  const body = hash < 0 ? text : text.slice(0, hash);
  if (hash >= 0 && descriptorChecksum(body) !== text.slice(hash + 1)) {
    throw new DescriptorRefusal("the descriptor's checksum does not match it");
  }
  if (XPRV.test(body) || WIF.test(body)) {
    throw new DescriptorRefusal(
      "the descriptor holds a private key: give its watch-only form (xpub/tpub, public keys)",
    );
  }
  const multipath = MULTIPATH.exec(body);
  const branches = multipath ? multipath[1]!.split(";").map(Number) : [null];
  const ranged = /\*/.test(body);
  const { Output } = descriptorsLibrary();
  const lib = libraryNetwork(network);
  const at = (branch: number | null, index: number | null): DerivedAddress => {
    const output = new Output({
      descriptor: body,
      network: lib,
      ...(index === null ? {} : { index }),
      ...(branch === null ? {} : { change: branch }),
    });
    return { branch, index, address: output.getAddress(), scriptPubKey: output.getScriptPubKey() };
  };
  try {
    const output = new Output({
      descriptor: body,
      network: lib,
      ...(ranged ? { index: 0 } : {}),
      ...(multipath ? { change: branches[0]! } : {}),
    });
    refusePrivateKeys(output);
    output.getScriptPubKey();
  } catch (err) {
    if (err instanceof DescriptorRefusal) throw err;
    throw new DescriptorRefusal(libraryReason(err, network));
  }
  return { branches, ranged, at };
}

/** Keys the library read as private, whatever their spelling: refused as the regexes refuse. */
function refusePrivateKeys(output: InstanceType<typeof Output>): void {
  const map = output.expand().expansionMap ?? {};
  for (const key of Object.values(map)) {
    if (key.bip32?.privateKey || key.ecpair?.privateKey) {
      throw new DescriptorRefusal(
        "the descriptor holds a private key: give its watch-only form (xpub/tpub, public keys)",
      );
    }
  }
}

/** The library's reason, in our words where we know it, and without the descriptor's text. */
function libraryReason(err: unknown, network: Network): string {
  const message = err instanceof Error ? err.message : String(err);
  if (/network version|invalid address|network/i.test(message)) {
    return `the descriptor's keys or addresses are not of ${network}`;
  }
  // Keys and descriptors quoted by the library are long base58 or script runs: cut out.
  const reason = message
    .replace(/^(Error: )+/, "")
    .replace(/\S*[1-9A-HJ-NP-Za-km-z]{40,}\S*/g, "…");
  return `not a descriptor this gateway can scan: ${reason.slice(0, 200)}`;
}
