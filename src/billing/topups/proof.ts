import { deriveTarget, fromHexReversed, sha256d, toHexReversed } from "../../bitcoin/index.ts";
import type { Network } from "../../bitcoin/network.ts";
import { isJsonObject, type Json, jsonInteger } from "../../protocol/json/json.ts";
import { headerAt } from "../../upstreams/electrum/headers.ts";
import type { ElectrumPool } from "../../upstreams/electrum/pool.ts";

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
 * Whether `txid` is in the block at `height` as the Electrum server says: its merkle branch
 * leads to the root of that height's header, and the header meets its own proof of work. What a
 * payment is credited on is then a block someone mined with that transaction in it, not a
 * history entry alone. Null when the server would not say (looked at again later).
 */
export async function provenAt(
  pool: ElectrumPool,
  network: Network,
  txid: string,
  height: number,
): Promise<boolean | null> {
  const out = await pool.request("blockchain.transaction.get_merkle", [txid, height] as Json[]);
  if (!out.ok || !("result" in out.answer) || !isJsonObject(out.answer.result)) return null;
  const { merkle, pos } = out.answer.result;
  const at = jsonInteger(pos) ?? (typeof pos === "number" ? pos : undefined);
  if (!Array.isArray(merkle) || at === undefined) return false;
  if (!merkle.every((h) => typeof h === "string" && /^[0-9a-f]{64}$/.test(h))) return false;
  const header = await headerAt(pool, height);
  if (!header) return null;
  const target = deriveTarget(Number.parseInt(header.bits, 16), network);
  if (target === undefined || BigInt(`0x${header.hash}`) > target) return false;
  return branchRoot(txid, merkle as string[], at) === header.merkleroot;
}
