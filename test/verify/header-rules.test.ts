import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseBlockHeader } from "../../src/bitcoin/block.ts";
import { readBlockRecords } from "../../src/bitcoin/block-records.ts";
import { deriveTarget } from "../../src/bitcoin/pow.ts";
import { CHAIN_PARAMS, genesisHeader } from "../../src/verify/chain/chain-params.ts";
import { toCompact } from "../../src/verify/chain/compact.ts";
import { blockProof, checkContext } from "../../src/verify/chain/header-check.ts";
import type { HeaderNode } from "../../src/verify/chain/header-node.ts";
import { HeaderTree } from "../../src/verify/chain/header-tree.ts";
import { calculateNextWorkRequired, nextWorkRequired } from "../../src/verify/chain/next-work.ts";
import { checkpointRoot, contextFloor, genesisRoot } from "../../src/verify/chain/root.ts";
import { BLOCKS_DIR, readBytes } from "../bitcoin/chain-data.ts";

/** Mainnet's headers 0..255, as data/chain holds them (genesis.raw, blocks1-255.dat). */
const MAINNET: Uint8Array[] = [
  readBytes(join(BLOCKS_DIR, "genesis.raw")).subarray(0, 80),
  ...[...readBlockRecords(readBytes(join(BLOCKS_DIR, "blocks1-255.dat")))].map((b) =>
    b.subarray(0, 80),
  ),
];
const main = CHAIN_PARAMS.mainnet;
/** Mainnet's blocks 1..255 were mined at the time they carry, long before now. */
const NOW_S = 1_800_000_000;

function tamper(bytes: Uint8Array, at: number, value: number): Uint8Array {
  const copy = Uint8Array.from(bytes);
  copy[at] = value;
  return copy;
}

function mainnetTree(upTo: number): HeaderTree {
  const tree = new HeaderTree(main, () => NOW_S);
  tree.seed(genesisRoot(main));
  for (let h = 1; h <= upTo; h++) expect(tree.add(MAINNET[h]!)).toMatchObject({ ok: true });
  return tree;
}

describe("the real mainnet headers 0..255", () => {
  it("verify from genesis, each on its parent, with Core's chainwork", () => {
    const tree = mainnetTree(255);
    const tip = tree.tip()!;
    expect(tip.height).toBe(255);
    expect(tip.hash).toBe("00000000d0a75c861fabf9ff7b92022f60e4afeed9331fe5aa073d8e4706fe3c");
    expect(tree.atHeight(170)!.hash).toBe(
      "00000000d1145790a8694403d4063f323d499e655c83426834d4ce2f8dd4a2ee",
    );
    // Every block of the first period claims 0x1d00ffff: 0x100010001 each, genesis included.
    expect(tip.chainwork).toBe(256n * 0x100010001n);
    expect(tree.onBest(tip.hash)).toBe(tip);
  });

  it("refuse a tampered copy: any changed byte breaks the proof of work", () => {
    const tree = mainnetTree(99);
    for (const [at, what] of [
      [76, "nonce"],
      [68, "time"],
      [40, "merkle root"],
      [72, "bits"],
      [0, "version"],
    ] as const) {
      const bad = tamper(MAINNET[100]!, at, MAINNET[100]![at]! ^ 1);
      expect(tree.add(bad), what).toEqual({ ok: false, reason: "high-hash at height 100" });
    }
    expect(tree.tip()!.height).toBe(99);
    expect(tree.add(MAINNET[100]!)).toMatchObject({ ok: true });
  });

  it("refuse a header whose parent is not in the tree (linkage)", () => {
    const tree = mainnetTree(99);
    expect(tree.add(MAINNET[101]!)).toEqual({ ok: false, reason: "prev-blk-not-found" });
  });

  it("refuse the real header 100 as the child of 98 (its parent is 99)", () => {
    const tree = mainnetTree(99);
    const h100 = parseBlockHeader(MAINNET[100]!);
    expect(checkContext(main, tree.atHeight(98)!, h100, NOW_S)).toBe("prev-blk-not-found");
  });

  it("start from a checkpoint: the context below it must hash up to it", () => {
    const c = { height: 200, hash: parseBlockHeader(MAINNET[200]!).hash, chainwork: "" };
    c.chainwork = (201n * 0x100010001n).toString(16);
    expect(contextFloor(main, c)).toBe(0);
    const root = checkpointRoot(main, c, MAINNET.slice(0, 201));
    if (typeof root === "string") throw new Error(root);
    const tree = new HeaderTree(main, () => NOW_S);
    tree.seed(root);
    expect(tree.atHeight(0)!.chainwork).toBe(0x100010001n);
    for (let h = 201; h <= 255; h++) expect(tree.add(MAINNET[h]!)).toMatchObject({ ok: true });
    expect(tree.tip()!.chainwork).toBe(256n * 0x100010001n);
    const forged = [...MAINNET.slice(0, 200), tamper(MAINNET[200]!, 76, 0)];
    expect(checkpointRoot(main, c, forged)).toBe("has no header hashing to the checkpoint");
    const unlinked = [...MAINNET.slice(0, 150), ...MAINNET.slice(151, 202)];
    expect(checkpointRoot(main, c, unlinked)).toBe("has no header hashing to the checkpoint");
  });
});

describe("genesis per network", () => {
  it("is each chain's consensus.hashGenesisBlock", () => {
    expect(genesisHeader("mainnet").hash).toBe(
      "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f",
    );
    expect(genesisHeader("testnet").hash).toBe(
      "000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943",
    );
    expect(genesisHeader("testnet4").hash).toBe(
      "00000000da84f2bafbbc53dee25a72ae507ff4914b867c565be350b0da8bf043",
    );
    expect(genesisHeader("signet").hash).toBe(
      "00000008819873e925422c1ff0f99f7cc9bbb232af63a077a480a3633bee1ef6",
    );
    expect(genesisHeader("regtest").hash).toBe(
      "0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206",
    );
  });

  it("is the powLimit's compact form on the chains whose genesis claims it", () => {
    expect(toCompact(CHAIN_PARAMS.mainnet.powLimit)).toBe(0x1d00ffff);
    expect(toCompact(CHAIN_PARAMS.signet.powLimit)).toBe(0x1e0377ae);
    expect(toCompact(CHAIN_PARAMS.regtest.powLimit)).toBe(0x207fffff);
    expect(toCompact(deriveTarget(0x1c05a3f4, "mainnet")!)).toBe(0x1c05a3f4);
  });
});

describe("retargeting (Core's pow_tests.cpp, real mainnet periods)", () => {
  it("scales the target by the period's timespan", () => {
    // Block 32256's nBits: the first period mainnet found faster than two weeks.
    const last = { time: 1262152739, bits: 0x1d00ffff }; // block 32255
    expect(calculateNextWorkRequired(main, last, 1261130161, 0)).toBe(0x1d00d86a); // block 30240
  });

  it("never eases past powLimit", () => {
    const last = { time: 1233061996, bits: 0x1d00ffff }; // block 2015
    expect(calculateNextWorkRequired(main, last, 1231006505, 0)).toBe(0x1d00ffff); // genesis
  });

  it("bounds a fast period to a quarter of the timespan", () => {
    const last = { time: 1279297671, bits: 0x1c05a3f4 }; // block 68543
    expect(calculateNextWorkRequired(main, last, 1279008237, 0)).toBe(0x1c0168fd); // 66528
  });

  it("bounds a slow period to four times the timespan", () => {
    const last = { time: 1269211443, bits: 0x1c387f6f }; // block 46367
    expect(calculateNextWorkRequired(main, last, 1263163443, 0)).toBe(0x1d00e1fd);
  });

  it("regtest never retargets; testnet4 (BIP94) scales the period's first block's target", () => {
    const last = { time: 1279297671, bits: 0x1d00ffff };
    expect(calculateNextWorkRequired(CHAIN_PARAMS.regtest, last, 1279008237, 0)).toBe(0x1d00ffff);
    expect(calculateNextWorkRequired(CHAIN_PARAMS.testnet4, last, 1279008237, 0x1c05a3f4)).toBe(
      0x1c0168fd,
    );
  });
});

/** A chain of nodes (no bytes: the contextual rules read heights, times and bits). */
function nodes(
  network: keyof typeof CHAIN_PARAMS,
  spec: { time: number; bits: number }[],
  from = 0,
) {
  const p = CHAIN_PARAMS[network];
  const out: HeaderNode[] = [];
  spec.forEach((s, i) => {
    const prev = out[i - 1] ?? null;
    out.push({
      height: from + i,
      hash: `${(from + i).toString(16).padStart(64, "0")}`,
      header: "",
      merkleRoot: "",
      time: s.time,
      chainwork: (prev?.chainwork ?? 0n) + blockProof(p, s.bits),
      version: 0x20000000,
      bits: s.bits,
      prev,
    });
  });
  return out;
}

describe("the testnet rules", () => {
  const real = 0x1c05a3f4;
  const limit = 0x1d00ffff;
  const t0 = 1_700_000_000;

  it("a header twenty minutes after its parent may claim powLimit (testnet3, testnet4)", () => {
    for (const network of ["testnet", "testnet4"] as const) {
      const chain = nodes(network, [{ time: t0, bits: real }], 4032 + 5);
      const parent = chain[0]!;
      expect(nextWorkRequired(CHAIN_PARAMS[network], parent, t0 + 1201)).toBe(limit);
      expect(nextWorkRequired(CHAIN_PARAMS[network], parent, t0 + 1200)).toBe(real);
    }
  });

  it("otherwise the last bits of the period not claimed by that rule", () => {
    const chain = nodes(
      "testnet",
      [
        { time: t0, bits: real },
        { time: t0 + 1300, bits: limit },
        { time: t0 + 2600, bits: limit },
      ],
      4032 + 5,
    );
    expect(nextWorkRequired(CHAIN_PARAMS.testnet, chain[2]!, t0 + 2700)).toBe(real);
    const header = { previousblockhash: chain[2]!.hash, time: t0 + 2700, version: 0x20000000 };
    expect(checkContext(CHAIN_PARAMS.testnet, chain[2]!, { ...header, bits: "1d00ffff" }, t0)).toBe(
      "bad-diffbits",
    );
    expect(checkContext(CHAIN_PARAMS.testnet, chain[2]!, { ...header, bits: "1c05a3f4" }, t0)).toBe(
      null,
    );
  });

  it("signet and mainnet have no such rule", () => {
    const chain = nodes("signet", [{ time: t0, bits: 0x1e0377ae }], 100);
    expect(nextWorkRequired(CHAIN_PARAMS.signet, chain[0]!, t0 + 10_000)).toBe(0x1e0377ae);
  });

  it("testnet4's timewarp rule: a period's first block at most 600 s before its parent", () => {
    const p = CHAIN_PARAMS.testnet4;
    const spec = Array.from({ length: 2016 }, (_, i) => ({ time: t0 + i * 600, bits: real }));
    const parent = nodes("testnet4", spec, 0)[2015]!;
    const at = (time: number) => {
      const bits = nextWorkRequired(p, parent, time).toString(16).padStart(8, "0");
      const claims = { previousblockhash: parent.hash, bits, time, version: 0x20000000 };
      return checkContext(p, parent, claims, parent.time);
    };
    // Both are after the median time past; only the earlier warps the next period.
    expect(at(parent.time - 601)).toBe("time-timewarp-attack");
    expect(at(parent.time - 600)).toBe(null);
    // testnet3 has no such rule.
    const t3 = nodes("testnet", spec, 0)[2015]!;
    const bits = nextWorkRequired(CHAIN_PARAMS.testnet, t3, t3.time - 601);
    const claims = {
      previousblockhash: t3.hash,
      bits: bits.toString(16).padStart(8, "0"),
      time: t3.time - 601,
      version: 0x20000000,
    };
    expect(checkContext(CHAIN_PARAMS.testnet, t3, claims, t3.time)).toBe(null);
  });

  it("time after the median of the previous eleven, at most two hours ahead", () => {
    const spec = Array.from({ length: 11 }, (_, i) => ({ time: t0 + i * 600, bits: 0x207fffff }));
    const chain = nodes("regtest", spec, 0);
    const parent = chain[10]!;
    const at = (time: number, version = 0x20000000) =>
      checkContext(
        CHAIN_PARAMS.regtest,
        parent,
        { previousblockhash: parent.hash, bits: "207fffff", time, version },
        t0 + 6000,
      );
    expect(at(t0 + 5 * 600)).toBe("time-too-old");
    expect(at(t0 + 5 * 600 + 1)).toBe(null);
    expect(at(t0 + 6000 + 7200 + 1)).toBe("time-too-new");
    expect(at(t0 + 6000 + 7200)).toBe(null);
    expect(at(t0 + 6001, 3)).toBe("bad-version(0x00000003)");
    expect(at(t0 + 6001, 4)).toBe(null);
  });
});
