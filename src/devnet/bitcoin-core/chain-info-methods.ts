import { LosslessNumber } from "lossless-json";
import { getDifficulty, uint256Hex, univalueDouble } from "../../bitcoin/index.ts";
import { deriveTarget } from "../../bitcoin/pow.ts";
import type { ChainBlock } from "../chain.ts";
import { chainWork, medianTimePast } from "../chain-facts.ts";
import { inActiveChain } from "./block-context.ts";
import type { CoreContext } from "./context.ts";
import type { RpcMethod } from "./http.ts";
import { readParams } from "./params.ts";

/** Core's chain names (CChainParams::GetChainTypeString). */
const CHAIN_NAME = {
  mainnet: "main",
  testnet: "test",
  testnet4: "testnet4",
  signet: "signet",
  regtest: "regtest",
} as const;

/** The default signet's challenge (chainparams.cpp): a 1-of-2 multisig. */
const SIGNET_CHALLENGE =
  "512103ad5e0edad18cb1f0fc0d28a3d4f1f3e445640337489abb10404f2d1e086be430210359ef5021964fe22d6f8e05b2463c9540ce96883fe3b278760f048f5189f2e6c452ae";

/** Core's getblockchaininfo and getchaintips over devnet's chain. */
export function chainInfoMethods(ctx: CoreContext): Record<string, RpcMethod> {
  const { chain } = ctx;
  return {
    getblockchaininfo: (raw) => {
      readParams("getblockchaininfo", raw, [], 0);
      const tip = chain.tip;
      const bits = Number.parseInt(tip.block.bits, 16);
      const mediantime = medianTimePast(chain, tip);
      const work = chainWork(chain, tip);
      let onDisk = 0;
      for (const entry of chain.byHash.values()) onDisk += entry.block.size;
      return {
        chain: CHAIN_NAME[ctx.network],
        blocks: tip.height,
        headers: tip.height,
        bestblockhash: tip.block.hash,
        bits: tip.block.bits,
        target: uint256Hex(deriveTarget(bits, ctx.network) ?? 0n),
        difficulty: new LosslessNumber(univalueDouble(getDifficulty(bits))),
        time: tip.block.time,
        ...(mediantime === undefined ? {} : { mediantime }),
        // devnet is always synced to its own tip.
        verificationprogress: 1,
        initialblockdownload: false,
        ...(work === undefined ? {} : { chainwork: uint256Hex(work) }),
        // The bytes of the blocks devnet holds (Core adds undo files and its index).
        size_on_disk: onDisk,
        pruned: false,
        ...(ctx.network === "signet" ? { signet_challenge: SIGNET_CHALLENGE } : {}),
        warnings: [],
      };
    },
    getchaintips: (raw) => {
      readParams("getchaintips", raw, [], 0);
      const tips: Record<string, unknown>[] = [
        { height: chain.tip.height, hash: chain.tip.block.hash, branchlen: 0, status: "active" },
      ];
      // Every branch off the best chain ends in a block no other off-chain block builds on; its
      // length runs down to the block above the fork point. Invalidated branches are "invalid",
      // those a reorganisation outgrew "valid-fork"; higher tips first, as Core's setTips.
      const off = new Map<ChainBlock, string>();
      for (const b of chain.invalidated()) off.set(b, "invalid");
      for (const b of chain.staleBlocks()) off.set(b, "valid-fork");
      const parents = new Set([...off.keys()].map((b) => b.block.previousblockhash));
      const ends = [...off.keys()].filter((b) => !parents.has(b.block.hash));
      for (const end of ends.sort((a, b) => b.height - a.height)) {
        let low = end;
        for (;;) {
          const parent = chain.byHash.get(low.block.previousblockhash);
          if (!parent || inActiveChain(chain, parent)) break;
          low = parent;
        }
        tips.push({
          height: end.height,
          hash: end.block.hash,
          branchlen: end.height - low.height + 1,
          status: off.get(end)!,
        });
      }
      return tips;
    },
  };
}
