import { type BlockHeader, fromHex, parseBlockHeader } from "../../bitcoin/index.ts";
import { jsonNumber } from "../../protocol/json/json.ts";
import type { ElectrumPool } from "./pool.ts";

/** The best chain's header at `height` (blockchain.block.header), or null when none was given. */
export async function headerAt(pool: ElectrumPool, height: number): Promise<BlockHeader | null> {
  const out = await pool.request("blockchain.block.header", [jsonNumber(height)]);
  if (!out.ok || !("result" in out.answer) || typeof out.answer.result !== "string") return null;
  return headerOf(out.answer.result);
}

/** An 80-byte header in hex (as Electrum servers send them), decoded; null when it is not one. */
export function headerOf(hex: string): BlockHeader | null {
  return /^[0-9a-fA-F]{160}$/.test(hex) ? parseBlockHeader(fromHex(hex)) : null;
}
