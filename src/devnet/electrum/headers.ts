import { toHex, toHexReversed } from "../../bitcoin/hex.ts";
import { BAD_REQUEST } from "../../protocol/electrum/params.ts";
import { pyThousands } from "../../protocol/electrum/python-text.ts";
import { compareProtocols, protocolTuple } from "../../protocol/electrum/version.ts";
import { type Json, jsonNumber } from "../../protocol/json/json.ts";
import type { DevnetChain } from "../chain.ts";
import { checked, type Handler } from "./handler.ts";
import { branchAndRoot } from "./merkle.ts";
import { ElectrumRpcError } from "./rpc-error.ts";

/** ElectrumX's MAX_CHUNK_SIZE: the most headers one blockchain.block.headers answers. */
const MAX_CHUNK_SIZE = 2016;

/**
 * Headers as ElectrumX serves them from its own database, with its checkpoint proofs. devnet's
 * chain is sparse (mainnet holds 0..255 and a few real blocks above), so a header is answered
 * only at a height devnet holds, a run of headers stops at the first height it lacks, and a
 * cp_height proof — a merkle tree over every header up to cp_height — only where all of them are
 * held; otherwise it is refused in words that say so.
 */
export function headerMethods(chain: DevnetChain): Record<string, Handler> {
  const header = (height: number) => chain.byHeight.get(height);
  return {
    "blockchain.headers.subscribe": checked("blockchain.headers.subscribe", (session) => {
      session.subscribedHeaders = true;
      return tipHeader(chain);
    }),
    "blockchain.block.header": checked("blockchain.block.header", (_session, [h, cp]) => {
      const height = Number(h);
      const cpHeight = Number(cp);
      const entry = header(height);
      // session_mgr.raw_header; also where devnet's sparse chain has no block.
      if (!entry || height > chain.tip.height) {
        throw new ElectrumRpcError(BAD_REQUEST, `height ${pyThousands(height)} out of range`);
      }
      const hex = toHex(entry.block.headerBytes);
      if (cpHeight === 0) return hex;
      return { header: hex, ...merkleProof(chain, cpHeight, height) };
    }),
    "blockchain.block.headers": checked("blockchain.block.headers", (session, [s, c, cp]) => {
      const start = Number(s);
      const cpHeight = Number(cp);
      // db.read_headers: no further than the tip; on devnet, no further than the first gap.
      const wanted = Math.max(0, Math.min(Number(c), MAX_CHUNK_SIZE, chain.tip.height + 1 - start));
      const parts: string[] = [];
      while (parts.length < wanted) {
        const entry = header(start + parts.length);
        if (!entry) break;
        parts.push(toHex(entry.block.headerBytes));
      }
      const count = parts.length;
      const proof =
        count > 0 && cpHeight !== 0 ? merkleProof(chain, cpHeight, start + count - 1) : {};
      // Protocol 1.6 (block_headers_array) lists the headers, after count and max.
      if (compareProtocols(protocolTuple(session.protocol ?? ""), [1, 6]) >= 0) {
        return {
          count: jsonNumber(count),
          max: jsonNumber(MAX_CHUNK_SIZE),
          headers: parts,
          ...proof,
        };
      }
      return {
        hex: parts.join(""),
        count: jsonNumber(count),
        max: jsonNumber(MAX_CHUNK_SIZE),
        ...proof,
      };
    }),
  };
}

/**
 * session._merkle_proof: the branch from the header at `height` to the root of the merkle tree
 * over the header hashes of heights 0..cp_height, hashes in display order.
 */
function merkleProof(
  chain: DevnetChain,
  cpHeight: number,
  height: number,
): { [key: string]: Json } {
  const max = chain.tip.height;
  if (!(height <= cpHeight && cpHeight <= max)) {
    throw new ElectrumRpcError(
      BAD_REQUEST,
      `require header height ${pyThousands(height)} <= cp_height ${pyThousands(cpHeight)} <= chain height ${pyThousands(max)}`,
    );
  }
  const hashes: Uint8Array[] = [];
  for (let h = 0; h <= cpHeight; h++) {
    const entry = chain.byHeight.get(h);
    if (!entry) {
      throw new ElectrumRpcError(
        BAD_REQUEST,
        `devnet holds a sparse chain: no header at height ${pyThousands(h)}, so no proof to cp_height ${pyThousands(cpHeight)}`,
      );
    }
    hashes.push(entry.block.hashBytes);
  }
  const { branch, root } = branchAndRoot(hashes, height);
  return { branch: branch.map(toHexReversed), root: toHexReversed(root) };
}

/** The result of blockchain.headers.subscribe and of its notifications. */
export function tipHeader(chain: DevnetChain): Json {
  return { hex: toHex(chain.tip.block.headerBytes), height: jsonNumber(chain.tip.height) };
}
