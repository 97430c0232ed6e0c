import { deriveTarget, fromHexReversed, sha256d, toHexReversed } from "../../bitcoin/index.ts";
import type { Network } from "../../bitcoin/network.ts";
import { isJsonObject, type Json, jsonInteger } from "../../protocol/json/json.ts";
import { headerAt } from "../../upstreams/electrum/headers.ts";
import type { ElectrumPool } from "../../upstreams/electrum/pool.ts";
import type { VerifiedChain } from "../../verify/chain/verified-chain.ts";

/** The root a merkle branch (Electrum's `get_merkle`) makes of `txid` at `pos`. */
export function branchRoot(txid: string, branch: readonly string[], pos: number): string {
  let hash = fromHexReversed(txid);
  let index = pos;
  for (const sibling of branch) {
    const other = fromHexReversed(sibling);
    const pair = new Uint8Array(64);
    pair.set(index % 2 === 1 ? other : hash, 0);
    pair.set(index % 2 === 1 ? hash : other, 32);
    hash = sha256d(pair);
    index = Math.floor(index / 2);
  }
  return toHexReversed(hash);
}

/**
 * Whether `txid` is in the block at `height`: its merkle branch (the Electrum server's) leads to
 * the merkle root of that height's header on the network's verified chain, where the gateway keeps
 * one; elsewhere to the server's header, which must meet its own proof of work. What a payment is
 * credited on is then a block with that transaction in it, not a history entry alone. Null when
 * it cannot be told now (the server would not say, the verified chain is not there yet).
 */
export async function provenAt(
  pool: ElectrumPool,
  network: Network,
  txid: string,
  height: number,
  chain?: VerifiedChain,
): Promise<boolean | null> {
  const out = await pool.request("blockchain.transaction.get_merkle", [txid, height] as Json[]);
  if (!out.ok || !("result" in out.answer) || !isJsonObject(out.answer.result)) return null;
  const { merkle, pos } = out.answer.result;
  const at = jsonInteger(pos) ?? (typeof pos === "number" ? pos : undefined);
  if (!Array.isArray(merkle) || at === undefined) return false;
  if (!merkle.every((h) => typeof h === "string" && /^[0-9a-f]{64}$/.test(h))) return false;
  const root = branchRoot(txid, merkle as string[], at);
  if (chain) {
    const verified = chain.atHeight(height);
    return verified ? root === verified.merkleRoot : null;
  }
  const header = await headerAt(pool, height);
  if (!header) return null;
  const target = deriveTarget(Number.parseInt(header.bits, 16), network);
  if (target === undefined || BigInt(`0x${header.hash}`) > target) return false;
  return root === header.merkleroot;
}
