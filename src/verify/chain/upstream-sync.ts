import type { HeaderNode } from "./header-node.ts";
import type { HeaderTree } from "./header-tree.ts";
import type { UpstreamHeaders, UpstreamTip } from "./upstream-headers.ts";

/**
 * What one look at an upstream found: its tip is a header of the tree (`node`); it served a
 * header that fails a check (`invalid`, Core's reason); its chain moved while it was read
 * (`moved`: look again); or it did not answer (`unreachable`: the breaker's business).
 */
export type SyncOutcome =
  | { kind: "ok"; tip: UpstreamTip; node: HeaderNode }
  | { kind: "invalid"; tip: UpstreamTip; reason: string }
  | { kind: "moved"; tip: UpstreamTip }
  | { kind: "unreachable"; error: string };

/**
 * Reads an upstream's chain into the tree: from the height after the last header of it the
 * tree holds (or the tree's tip) up to its tip, in batches; where its first header's parent is
 * unknown (a fork, a reorganisation) it steps back, doubling each time, down to the tree's root.
 * Each header is checked as it is added; the first that fails ends the look.
 */
export async function syncUpstream(
  tree: HeaderTree,
  reader: UpstreamHeaders,
  lastHeight: number | undefined,
  batchMax: number,
): Promise<SyncOutcome> {
  let tip: UpstreamTip;
  try {
    tip = await reader.tip();
  } catch (err) {
    return { kind: "unreachable", error: (err as Error).message };
  }
  const known = tree.node(tip.hash);
  if (known) return { kind: "ok", tip, node: known };
  const refused = tree.rejection(tip.hash);
  if (refused) return { kind: "invalid", tip, reason: refused };
  if (tip.height <= tree.lowest) return { kind: "invalid", tip, reason: "below the verified root" };
  let start = Math.min(tip.height, (lastHeight ?? tree.tip()!.height) + 1);
  start = Math.max(start, tree.lowest + 1);
  let back = 1;
  try {
    for (;;) {
      const count = Math.min(batchMax, tip.height - start + 1);
      const headers = await reader.headers(start, count);
      if (headers.length === 0) return { kind: "moved", tip };
      const first = tree.add(headers[0]!);
      if (!first.ok && first.reason === "prev-blk-not-found") {
        if (start === tree.lowest + 1) {
          return { kind: "invalid", tip, reason: "does not descend from the verified root" };
        }
        start = Math.max(tree.lowest + 1, start - back);
        back *= 2;
        continue;
      }
      const added = addAll(tree, headers, start);
      if (added.kind !== "ok") return { ...added, tip };
      if (added.node.height >= tip.height) {
        return added.node.hash === tip.hash
          ? { kind: "ok", tip, node: added.node }
          : { kind: "moved", tip };
      }
      start = added.node.height + 1;
    }
  } catch (err) {
    return { kind: "unreachable", error: (err as Error).message };
  }
}

type Added =
  | { kind: "ok"; node: HeaderNode }
  | { kind: "invalid"; reason: string }
  | { kind: "moved" };

/** Adds a batch read at heights from `start`; a break in its links means the chain moved meanwhile. */
function addAll(tree: HeaderTree, headers: readonly Uint8Array[], start: number): Added {
  let node: HeaderNode | undefined;
  for (const [i, bytes] of headers.entries()) {
    const out = tree.add(bytes);
    if (!out.ok) {
      if (out.reason === "prev-blk-not-found") return { kind: "moved" };
      return { kind: "invalid", reason: out.reason };
    }
    if (out.node.height !== start + i)
      return { kind: "invalid", reason: `a header out of place at height ${start + i}` };
    node = out.node;
  }
  return { kind: "ok", node: node! };
}
