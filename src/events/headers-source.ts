import { parseBlockHeader } from "../bitcoin/block.ts";
import { fromHex } from "../bitcoin/hex.ts";
import { isJsonNumber, isJsonObject, type Json } from "../protocol/json/json.ts";
import type { BitcoinCorePool } from "../upstreams/bitcoin-core/pool.ts";
import { headerAt, headerOf } from "../upstreams/electrum/headers.ts";
import type { ElectrumPool } from "../upstreams/electrum/pool.ts";
import type { VerifiedChain } from "../verify/chain/verified-chain.ts";
import type { VerifiedHeader } from "../verify/chain/verified-header.ts";

/** A block of the best chain as the chain follower remembers it. */
export interface Header {
  height: number;
  hash: string;
  previousHash: string | null;
  /** The header's time (Unix seconds). */
  time: number;
}

/**
 * Where a chain follower reads a network's best chain: its tip, and the ancestry of a new tip
 * down to a block it knew. A full node (Core) is one; an Electrum server is the other, for a
 * network with no node. Any failure throws: that look is over, the next one tries again.
 */
export interface HeadersSource {
  /** The tip's header, or null when the tip's hash is `knownHash` (nothing moved). */
  tip(knownHash: string | null): Promise<Header | null>;
  /** The block below `child` on the chain `child` is on. */
  parent(child: Header & { previousHash: string }): Promise<Header>;
}

/** Core: getbestblockhash (one cheap call when nothing moved), then getblockheader by hash. */
export function coreHeaders(pool: BitcoinCorePool): HeadersSource {
  const call = async (method: string, params: Json[]): Promise<Json> => {
    const out = await pool.batch([{ method, params }]);
    if (!out.ok) throw new Error(out.error.message);
    const answer = out.answers[0]!;
    if ("error" in answer) throw new Error(answer.error.message);
    return answer.result;
  };
  const header = async (hash: string): Promise<Header> => {
    const answer = await call("getblockheader", [hash, true]);
    if (!isJsonObject(answer) || !isJsonNumber(answer.height) || !isJsonNumber(answer.time)) {
      throw new Error(`getblockheader ${hash} answered no header`);
    }
    return {
      height: Number(answer.height.value),
      hash,
      previousHash: typeof answer.previousblockhash === "string" ? answer.previousblockhash : null,
      time: Number(answer.time.value),
    };
  };
  return {
    async tip(knownHash) {
      const best = await call("getbestblockhash", []);
      if (typeof best !== "string") throw new Error("getbestblockhash answered no hash");
      return best === knownHash ? null : header(best);
    },
    parent: (child) => header(child.previousHash),
  };
}

const NO_PARENT = "0".repeat(64);

/**
 * An Electrum server: the tip its headers subscription reports (kept current by the server's
 * notifications, no call), the ancestry by height (blockchain.block.header). Headers come by
 * height, not hash, so a parent that is not the block its child names means the server's chain
 * moved during the walk: the look fails and the next one starts from the new tip.
 */
export function electrumHeaders(pool: ElectrumPool): HeadersSource {
  return {
    async tip(knownHash) {
      const tip = pool.tip();
      const header = tip ? headerOf(tip.hex) : null;
      if (!tip || !header) throw new Error("no live headers subscription");
      if (header.hash === knownHash) return null;
      return {
        height: tip.height,
        hash: header.hash,
        previousHash: header.previousblockhash === NO_PARENT ? null : header.previousblockhash,
        time: header.time,
      };
    },
    async parent(child) {
      const header = await headerAt(pool, child.height - 1);
      if (!header) throw new Error(`no header at height ${child.height - 1}`);
      if (header.hash !== child.previousHash) throw new Error("the chain moved during the walk");
      return {
        height: child.height - 1,
        hash: header.hash,
        previousHash: header.previousblockhash === NO_PARENT ? null : header.previousblockhash,
        time: header.time,
      };
    },
  };
}

/**
 * The verified header chain (src/verify/chain/), where verification is on: what is announced is
 * then only what the gateway checked, whichever upstream served it. Its ancestry is read from
 * the best chain by height; a parent that is not the block its child names means the best chain
 * changed during the walk.
 */
export function verifiedHeaders(chain: VerifiedChain): HeadersSource {
  const header = (v: VerifiedHeader): Header => {
    const previous = parseBlockHeader(fromHex(v.header)).previousblockhash;
    return {
      height: v.height,
      hash: v.hash,
      previousHash: v.height === 0 ? null : previous,
      time: v.time,
    };
  };
  return {
    async tip(knownHash) {
      const tip = chain.tip();
      if (!tip) throw new Error("the verified chain has not synced yet");
      return tip.hash === knownHash ? null : header(tip);
    },
    async parent(child) {
      const parent = chain.atHeight(child.height - 1);
      if (!parent) throw new Error(`no verified header at height ${child.height - 1}`);
      if (parent.hash !== child.previousHash) throw new Error("the chain moved during the walk");
      return header(parent);
    },
  };
}
