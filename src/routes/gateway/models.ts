import type { Network, Prevout, ScriptPubKeyParts, Transaction } from "../../bitcoin/index.ts";
import type { Verified } from "../../protocol/verified.ts";
import type { MembershipProof } from "../../upstreams/chain-view.ts";

/** Where a transaction's block position came from; absent for mempool and locally decoded ones. */
export interface BlockPosition {
  hash: string;
  confirmations: number;
  time: number;
  blocktime: number;
}

/** The backing value of the GraphQL Transaction type: the parsed bytes plus what the node said. */
export interface TransactionModel {
  tx: Transaction;
  network: Network;
  /** "FULL_NODE" when fetched; "DECODED" for decodeTransaction's caller-held bytes. */
  origin: "FULL_NODE" | "DECODED";
  /** Where it was mined; null in the mempool, and when the node was asked for its hex alone
   * (graphql/loaders.ts: the operation selects no field that reads it). */
  block: BlockPosition | null;
  /** Spent outputs by input index, when the node gave them (verbosity 2). */
  prevouts: (Prevout | undefined)[] | null;
  /**
   * The outputs' decoded scripts by index, filled as they are asked for; shared by every request
   * that got the same transaction from the decoded-transaction memo (src/cache/parsed-txs.ts).
   */
  scripts?: (ScriptPubKeyParts | undefined)[];
  /** How far the gateway checked it, and the merkle proof when its block was proven. */
  verification?: TxVerification;
}

export interface TxVerification {
  status: Verified;
  proof: MembershipProof | null;
}
