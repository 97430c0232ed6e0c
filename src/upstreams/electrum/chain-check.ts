import { rootOfBranch } from "../../bitcoin/merkle-proof.ts";
import { isJsonObject, type Json, jsonInteger } from "../../protocol/json/json.ts";
import type { RpcAnswer } from "../../protocol/json/types.ts";
import type { Verified } from "../../protocol/verified.ts";
import type { ChainView } from "../chain-view.ts";

const HEX_HEADER = 160;

/**
 * Why a server's answer disagrees with the verified chain, or null: a merkle branch
 * (blockchain.transaction.get_merkle) that does not lead to the verified header's merkle root at
 * its height; a header (blockchain.block.header, .headers) that is not the verified one at its
 * height. Heights the verified chain does not have yet are not checked.
 */
export function chainMismatch(
  chain: ChainView,
  method: string,
  params: readonly Json[],
  result: Json,
): string | null {
  if (method === "blockchain.transaction.get_merkle") {
    const merkle = merkleOf(params, result);
    const header = merkle && chain.atHeight(merkle.height);
    if (!merkle || !header) return null;
    const root = rootOfBranch(merkle.txid, merkle.pos, merkle.branch);
    return root === header.merkleRoot
      ? null
      : `transaction ${merkle.txid}: its branch does not lead to block ${header.hash}`;
  }
  const headers = headersOf(method, params, result);
  for (const [i, hex] of (headers?.hexes ?? []).entries()) {
    const header = chain.atHeight(headers!.start + i);
    if (header && header.header !== hex)
      return `header ${headers!.start + i}: not the verified one`;
  }
  return null;
}

/** How far a forwarded answer was checked against the chain (chainMismatch having held). */
export function chainLevel(
  chain: ChainView | undefined,
  method: string,
  params: readonly Json[],
  answer: RpcAnswer,
): Verified {
  if (!chain || "error" in answer) return "unchecked";
  if (method === "blockchain.transaction.get_merkle") {
    const merkle = merkleOf(params, answer.result);
    return merkle && chain.atHeight(merkle.height) ? "chain" : "unchecked";
  }
  const headers = headersOf(method, params, answer.result);
  if (!headers || headers.hexes.length === 0) return "unchecked";
  const last = headers.start + headers.hexes.length - 1;
  return chain.atHeight(last) ? "chain" : "unchecked";
}

function merkleOf(params: readonly Json[], result: Json) {
  const txid = params[0];
  if (typeof txid !== "string" || !isJsonObject(result)) return null;
  const height = jsonInteger(result.block_height);
  const pos = jsonInteger(result.pos);
  const branch = result.merkle;
  if (height === undefined || pos === undefined || !Array.isArray(branch)) return null;
  if (!branch.every((b) => typeof b === "string")) return null;
  return { txid: txid.toLowerCase(), height, pos, branch: branch as string[] };
}

function headersOf(method: string, params: readonly Json[], result: Json) {
  const start = jsonInteger(params[0]) ?? (typeof params[0] === "number" ? params[0] : undefined);
  if (start === undefined) return null;
  if (method === "blockchain.block.header") {
    const hex = typeof result === "string" ? result : isJsonObject(result) ? result.header : null;
    return typeof hex === "string" ? { start, hexes: [hex] } : null;
  }
  if (method === "blockchain.block.headers" && isJsonObject(result)) {
    // Protocol 1.6 lists the headers; earlier ones concatenate them.
    const listed = result.headers;
    if (Array.isArray(listed) && listed.every((h) => typeof h === "string")) {
      return { start, hexes: listed as string[] };
    }
    const { hex } = result;
    if (typeof hex !== "string" || hex.length % HEX_HEADER !== 0) return null;
    const hexes = Array.from({ length: hex.length / HEX_HEADER }, (_, i) =>
      hex.slice(i * HEX_HEADER, (i + 1) * HEX_HEADER),
    );
    return { start, hexes };
  }
  return null;
}
