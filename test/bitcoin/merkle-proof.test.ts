// Core's CMerkleBlock read back (src/bitcoin/merkle-proof.ts), on real blocks: every subset of a
// block's transactions proven by merkleBlockBytes walks back to the header's root, each proven
// transaction's branch leads there too, and a proof with one bit or hash changed is refused.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { merkleBlockBytes } from "../../src/bitcoin/merkle-block.ts";
import { readMerkleProof, rootOfBranch } from "../../src/bitcoin/merkle-proof.ts";
import { loadDevnetChain } from "../../src/devnet/chain.ts";

const chain = loadDevnetChain();

function realBlock(height: number) {
  return chain.byHeight.get(height)!.block;
}

describe("readMerkleProof", () => {
  it("reads back any subset of a real block's transactions, branches included", () => {
    const block = realBlock(277647);
    const txids = block.transactions.map((t) => t.txidBytes);
    fc.assert(
      fc.property(
        fc.array(fc.boolean(), { minLength: txids.length, maxLength: txids.length }),
        (match) => {
          const proof = readMerkleProof(merkleBlockBytes(block.headerBytes, txids, match));
          const expected = block.transactions.flatMap((t, i) => (match[i] ? [t.txid] : []));
          expect(proof.header.hash).toBe(block.hash);
          expect(proof.matched.map((m) => m.txid)).toEqual(expected);
          for (const m of proof.matched) {
            expect(rootOfBranch(m.txid, m.pos, m.branch)).toBe(block.merkleroot);
            expect(block.transactions[m.pos]!.txid).toBe(m.txid);
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it("refuses a proof whose hashes do not lead to its header's root", () => {
    const block = realBlock(277647);
    const txids = block.transactions.map((t) => t.txidBytes);
    const bytes = merkleBlockBytes(
      block.headerBytes,
      txids,
      txids.map((_, i) => i === 5),
    );
    const changed = bytes.slice();
    // A bit of the first hash (past the header, the count and the hashes' compact size).
    const at = 80 + 4 + 1 + 3;
    changed[at] = changed[at]! ^ 1;
    expect(() => readMerkleProof(changed)).toThrow(/merkle root/);
    expect(() => readMerkleProof(bytes.subarray(0, bytes.length - 1))).toThrow();
  });
});
