import { readFileSync } from "node:fs";
import { fromHex } from "./hex.ts";

/** What Core's undo data says about a spent output (its Coin). */
export interface Prevout {
  readonly valueSats: bigint;
  readonly scriptPubKey: Uint8Array;
  readonly height: number;
  /** The output was created by a coinbase (Core prints it as `generated`). */
  readonly coinbase: boolean;
}

/** Map keyed by `"<txid>:<vout>"` (display-order txid), or any lookup function. */
export type PrevoutLookup =
  | ReadonlyMap<string, Prevout>
  | ((txid: string, vout: number) => Prevout | undefined);

export function outpointKey(txid: string, vout: number): string {
  return `${txid}:${vout}`;
}

export function lookupPrevout(
  lookup: PrevoutLookup,
  txid: string,
  vout: number,
): Prevout | undefined {
  return typeof lookup === "function" ? lookup(txid, vout) : lookup.get(outpointKey(txid, vout));
}

interface PrevoutsFile {
  prevouts: Record<
    string,
    { value_sat: number | string; scriptPubKey: string; height: number; coinbase: boolean }
  >;
}

/**
 * Parse a prevouts document such as data/chain/blocks/277647.prevouts.json:
 * `{prevouts: {"<txid>:<vout>": {value_sat, scriptPubKey (hex), height, coinbase}}}`.
 * value_sat is read from the raw text (never through a float) so large values stay exact.
 */
export function parsePrevoutsJson(text: string): Map<string, Prevout> {
  // Quote every value_sat number so JSON.parse cannot round it.
  const safe = text.replace(/("value_sat"\s*:\s*)(-?\d+)/g, '$1"$2"');
  const doc = JSON.parse(safe) as PrevoutsFile;
  const out = new Map<string, Prevout>();
  for (const [key, p] of Object.entries(doc.prevouts)) {
    out.set(key, {
      valueSats: BigInt(p.value_sat),
      scriptPubKey: fromHex(p.scriptPubKey),
      height: p.height,
      coinbase: p.coinbase,
    });
  }
  return out;
}

export function loadPrevoutsFile(path: string): Map<string, Prevout> {
  return parsePrevoutsJson(readFileSync(path, "utf8"));
}
