import { LosslessNumber } from "lossless-json";
import { getDifficulty, uint256Hex, univalueDouble } from "../../bitcoin/index.ts";
import { deriveTarget } from "../../bitcoin/pow.ts";
import { chainWork, medianTimePast } from "../chain-facts.ts";
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
      const invalid = chain.invalidated();
      if (invalid.length > 0) {
        const top = invalid.reduce((a, b) => (b.height > a.height ? b : a));
        const low = invalid.reduce((a, b) => (b.height < a.height ? b : a));
        tips.push({
          height: top.height,
          hash: top.block.hash,
          branchlen: top.height - low.height + 1,
          status: "invalid",
        });
      }
      return tips;
    },
  };
}
