import type { Verified } from "../../../protocol/verified.ts";
import type { MembershipProof } from "../../../upstreams/chain-view.ts";
import { builder } from "../builder.ts";
import type { TxVerification } from "../models.ts";

const STATUS: Record<Verified, "CHAIN" | "BYTES" | "PARTIAL" | "UNCHECKED"> = {
  chain: "CHAIN",
  bytes: "BYTES",
  partial: "PARTIAL",
  unchecked: "UNCHECKED",
};

type Check = "TXID" | "BLOCK" | "CONFIRMATIONS";

const CHECKED: Record<Verified, Check[]> = {
  chain: ["TXID", "BLOCK", "CONFIRMATIONS"],
  bytes: ["TXID"],
  partial: ["TXID"],
  unchecked: [],
};

export const VerificationStatus = builder.enumType("VerificationStatus", {
  description: "How far blockgate checked an answer (the X-Blockgate-Verified header's values).",
  values: {
    CHAIN: {
      description:
        "Everything it claims was checked against the verified header chain: its bytes hash to its txid, a merkle proof puts it in a block on that chain, confirmations count from the verified tip.",
    },
    BYTES: {
      description:
        "Its bytes hash to its txid; it claims no block (in the mempool, or the hex alone).",
    },
    PARTIAL: {
      description:
        "Its bytes were checked, not its block: no verified chain for the network yet, or the block is not on it.",
    },
    UNCHECKED: { description: "Nothing was checked (bytes the caller gave)." },
  },
});

export const VerificationCheck = builder.enumType("VerificationCheck", {
  description: "One thing blockgate checked of an answer.",
  values: {
    TXID: {
      description: "The transaction's bytes hash (double SHA-256, without witness) to its txid.",
    },
    BLOCK: {
      description:
        "A merkle proof from the upstream puts it in its block, a header of the verified chain.",
    },
    CONFIRMATIONS: { description: "Its confirmations are counted from the verified chain's tip." },
  },
});

const MerkleBranchRef = builder.objectRef<MembershipProof>("MerkleBranch").implement({
  description:
    "What proves a transaction is in its block, for a client to check blockgate in turn: hashing the txid with each branch hash (on the right when the position's bit at that level is 0, on the left when 1) gives the header's merkle root.",
  fields: (t) => ({
    blockhash: t.field({ type: "BlockHash", resolve: (p) => p.blockhash }),
    height: t.int({ resolve: (p) => p.height }),
    position: t.int({
      description: "The transaction's index in its block.",
      resolve: (p) => p.pos,
    }),
    branch: t.stringList({
      description:
        "Sibling hashes from the transaction up to the root (display hex, as Electrum's get_merkle).",
      resolve: (p) => [...p.branch],
    }),
    header: t.field({
      type: "Hex",
      description: "The block's 80 header bytes, as on the verified chain.",
      resolve: (p) => p.header,
    }),
  }),
});

export const VerificationRef = builder.objectRef<TxVerification>("Verification").implement({
  description: "How far blockgate checked a transaction, and the proof when its block was proven.",
  fields: (t) => ({
    status: t.field({ type: VerificationStatus, resolve: (v) => STATUS[v.status] }),
    checked: t.field({
      type: [VerificationCheck],
      resolve: (v) => CHECKED[v.status],
    }),
    proof: t.field({
      type: MerkleBranchRef,
      nullable: true,
      description: "The merkle branch and header; null unless the block was proven.",
      resolve: (v) => (v.status === "chain" ? v.proof : null),
    }),
  }),
});
