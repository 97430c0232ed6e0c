import { fromHex } from "../../bitcoin/hex.ts";
import { isJsonObject, type Json, jsonInteger, jsonNumber } from "../../protocol/json/json.ts";
import type { RpcCall } from "../../protocol/json/types.ts";
import type { BitcoinCoreClient } from "../../upstreams/bitcoin-core/client.ts";
import type { ElectrumUpstream } from "../../upstreams/electrum/client.ts";
import { headerOf } from "../../upstreams/electrum/headers.ts";

export type UpstreamKind = "node" | "electrum";

/** An upstream's best block as it reports it. */
export interface UpstreamTip {
  height: number;
  hash: string;
}

/**
 * One upstream's headers, read from that member alone (not through its pool: the point is to
 * compare members). Any failure throws; the follower tries again at its next look.
 */
export interface UpstreamHeaders {
  readonly kind: UpstreamKind;
  /** `host:port`, as the pools, metrics and /readyz name it. */
  readonly name: string;
  tip(): Promise<UpstreamTip>;
  /** The raw headers at heights `from` .. `from + count - 1` of the upstream's best chain. */
  headers(from: number, count: number): Promise<Uint8Array[]>;
}

/** Bitcoin Core: getbestblockhash and getblockheader for the tip; getblockhash then getblockheader (raw) in batches. */
export function coreHeaders(client: BitcoinCoreClient): UpstreamHeaders {
  const results = async (calls: RpcCall[]): Promise<Json[]> => {
    const out = await client.batch(calls);
    if (!out.ok) throw new Error(out.error.detail ?? out.error.message);
    return out.answers.map((a, i) => {
      if ("error" in a) throw new Error(`${calls[i]!.method}: ${a.error.message}`);
      return a.result;
    });
  };
  return {
    kind: "node",
    name: client.name,
    async tip() {
      const [best] = await results([{ method: "getbestblockhash", params: [] }]);
      if (typeof best !== "string") throw new Error("getbestblockhash answered no hash");
      const [header] = await results([{ method: "getblockheader", params: [best, true] }]);
      const height = isJsonObject(header) ? jsonInteger(header.height) : undefined;
      if (height === undefined) throw new Error("getblockheader answered no height");
      return { height, hash: best };
    },
    async headers(from, count) {
      const heights = Array.from({ length: count }, (_, i) => from + i);
      const hashes = await results(
        heights.map((h) => ({ method: "getblockhash", params: [jsonNumber(h)] })),
      );
      const hexes = await results(
        hashes.map((hash) => ({ method: "getblockheader", params: [hash, false] })),
      );
      return hexes.map((hex) => {
        if (typeof hex !== "string" || !/^[0-9a-f]{160}$/i.test(hex)) {
          throw new Error("getblockheader answered no header");
        }
        return fromHex(hex);
      });
    },
  };
}

/** An Electrum server: its tip (blockchain.headers.subscribe); blockchain.block.headers in chunks. */
export function electrumHeaders(upstream: ElectrumUpstream): UpstreamHeaders {
  return {
    kind: "electrum",
    name: upstream.name,
    // Asked afresh rather than read from the subscription's notifications: the client keeps
    // the highest tip it heard, and a server that fell behind must be seen to have.
    async tip() {
      const out = await upstream.request("blockchain.headers.subscribe", []);
      if (!out.ok) throw new Error(out.error.detail ?? out.error.message);
      if ("error" in out.answer) throw new Error(out.answer.error.message);
      const result = out.answer.result;
      const height = isJsonObject(result) ? jsonInteger(result.height) : undefined;
      const header =
        isJsonObject(result) && typeof result.hex === "string" ? headerOf(result.hex) : null;
      if (height === undefined || !header)
        throw new Error("blockchain.headers.subscribe answered no tip");
      return { height, hash: header.hash };
    },
    async headers(from, count) {
      const out = await upstream.request("blockchain.block.headers", [
        jsonNumber(from),
        jsonNumber(count),
      ]);
      if (!out.ok) throw new Error(out.error.detail ?? out.error.message);
      if ("error" in out.answer) throw new Error(out.answer.error.message);
      return headersOf(out.answer.result);
    },
  };
}

/** blockchain.block.headers' headers: concatenated in `hex`, or listed in `headers` (protocol 1.6). */
function headersOf(result: Json): Uint8Array[] {
  const listed = isJsonObject(result) ? result.headers : undefined;
  const hex = isJsonObject(result)
    ? typeof result.hex === "string"
      ? result.hex
      : Array.isArray(listed) && listed.every((h) => typeof h === "string")
        ? listed.join("")
        : undefined
    : undefined;
  if (hex === undefined || hex.length % 160 !== 0 || !/^[0-9a-f]*$/i.test(hex)) {
    throw new Error("blockchain.block.headers answered no headers");
  }
  const bytes = fromHex(hex);
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += 80) out.push(bytes.subarray(i, i + 80));
  return out;
}
