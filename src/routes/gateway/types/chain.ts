import { parseAmount } from "../../../bitcoin/index.ts";
import { isJsonNumber, isJsonObject, type Json, jsonNumber } from "../../../protocol/json/json.ts";
import { builder, type FieldCost } from "../builder.ts";
import type { GraphQLContext } from "../context.ts";
import { codedError } from "../errors.ts";
import type { TransactionModel } from "../models.ts";
import { ask } from "../upstream-calls.ts";
import { Amount } from "./amount.ts";
import { TransactionRef } from "./transaction.ts";
import { transactionByTxid } from "./transaction-queries.ts";

/** What Core answered for a header or a block (getblockheader true, getblock 1), as it said it. */
type CoreObject = { [key: string]: Json };

const num = (v: Json | undefined): number | null => (isJsonNumber(v) ? Number(v.value) : null);
const str = (v: Json | undefined): string | null => (typeof v === "string" ? v : null);
/** A BTC amount as Core printed it (a kept literal), exact. */
const btc = (v: Json | undefined): bigint | null => (isJsonNumber(v) ? parseAmount(v.value) : null);

function objectOf(answer: Json, what: string): CoreObject {
  if (!isJsonObject(answer))
    throw codedError("UPSTREAM_BAD_RESPONSE", `the node's ${what} is not an object`);
  return answer;
}

/** The fields a header and a block share, read from Core's object (getblockheader's key names). */
const ChainBlockFields = builder.interfaceRef<CoreObject>("ChainBlockFields").implement({
  description: "A block header's fields, as Bitcoin Core reports them for the best chain.",
  fields: (t) => ({
    hash: t.field({ type: "BlockHash", resolve: (o) => str(o.hash) ?? "" }),
    height: t.int({ resolve: (o) => num(o.height) ?? 0 }),
    confirmations: t.int({
      description: "1 for the tip; -1 for a block off the best chain.",
      resolve: (o) => num(o.confirmations) ?? 0,
    }),
    version: t.int({ resolve: (o) => num(o.version) ?? 0 }),
    merkleRoot: t.field({ type: "TxId", resolve: (o) => str(o.merkleroot) ?? "" }),
    time: t.int({
      description: "Unix seconds (the header's time).",
      resolve: (o) => num(o.time) ?? 0,
    }),
    medianTime: t.int({
      nullable: true,
      description: "Median time past: the median of the 11 blocks' times up to this one.",
      resolve: (o) => num(o.mediantime),
    }),
    nonce: t.field({ type: "UInt32", resolve: (o) => num(o.nonce) ?? 0 }),
    bits: t.string({
      description: "The compact target, as hex.",
      resolve: (o) => str(o.bits) ?? "",
    }),
    difficulty: t.float({ resolve: (o) => num(o.difficulty) ?? 0 }),
    chainwork: t.string({
      nullable: true,
      description: "Expected hashes to produce the chain up to here, as hex.",
      resolve: (o) => str(o.chainwork),
    }),
    transactionCount: t.int({ resolve: (o) => num(o.nTx) ?? 0 }),
    previousBlockHash: t.field({
      type: "BlockHash",
      nullable: true,
      resolve: (o) => str(o.previousblockhash),
    }),
    nextBlockHash: t.field({
      type: "BlockHash",
      nullable: true,
      resolve: (o) => str(o.nextblockhash),
    }),
  }),
});

export const BlockHeaderRef = builder.objectRef<CoreObject>("BlockHeader").implement({
  description: "A block header from the full node (getblockheader).",
  interfaces: [ChainBlockFields],
  isTypeOf: (o) => isJsonObject(o as Json) && !Array.isArray((o as CoreObject).tx),
  fields: () => ({}),
});

const TX_PAGE = 25;

const NodeBlockRef = builder.objectRef<CoreObject>("NodeBlock").implement({
  description:
    "A block from the full node (getblock, verbosity 1): its header fields, sizes and txids; its transactions decoded on request.",
  interfaces: [ChainBlockFields],
  isTypeOf: (o) => isJsonObject(o as Json) && Array.isArray((o as CoreObject).tx),
  fields: (t) => ({
    size: t.int({ resolve: (o) => num(o.size) ?? 0 }),
    strippedSize: t.int({ resolve: (o) => num(o.strippedsize) ?? 0 }),
    weight: t.int({ resolve: (o) => num(o.weight) ?? 0 }),
    txids: t.field({
      type: ["TxId"],
      resolve: (o) =>
        Array.isArray(o.tx) ? o.tx.filter((x): x is string => typeof x === "string") : [],
    }),
    transactions: t.field({
      type: [TransactionRef],
      description: `A page of the block's transactions in block order (${TX_PAGE} by default), each priced as a getrawtransaction.`,
      args: {
        limit: t.arg.int({ defaultValue: TX_PAGE }),
        offset: t.arg.int({ defaultValue: 0 }),
      },
      extensions: {
        cost: {
          method: "getrawtransaction",
          countArg: { arg: "limit", default: TX_PAGE },
        } satisfies FieldCost,
      },
      resolve: (o, { limit, offset }, ctx) => {
        const txids = Array.isArray(o.tx)
          ? o.tx.filter((x): x is string => typeof x === "string")
          : [];
        const from = Math.max(0, offset ?? 0);
        const page = txids.slice(from, from + Math.max(0, limit ?? TX_PAGE));
        return Promise.all(page.map((txid) => transactionByTxid(ctx, txid))) as Promise<
          TransactionModel[]
        >;
      },
    }),
  }),
});

/** The hash of the block asked for: given, or the best chain's block at the height (getblockhash). */
async function blockHashOf(
  ctx: GraphQLContext,
  hash: string | null | undefined,
  height: number | null | undefined,
): Promise<string> {
  if ((hash == null) === (height == null)) {
    throw codedError("INVALID_PARAMS", "give exactly one of hash and height");
  }
  if (hash != null) return hash;
  const answer = await ask(ctx.nodeCalls, {
    method: "getblockhash",
    params: [jsonNumber(height!)],
  });
  if (typeof answer !== "string")
    throw codedError("UPSTREAM_BAD_RESPONSE", "the node's block hash is not a string");
  return answer;
}

const BY_HEIGHT = { arg: "height", method: "getblockhash" };

const FeeEstimateRef = builder
  .objectRef<{ target: number; answer: CoreObject }>("FeeEstimate")
  .implement({
    description: "Core's estimatesmartfee for one confirmation target.",
    fields: (t) => ({
      target: t.int({
        description: "The confirmation target asked for, in blocks.",
        resolve: (e) => e.target,
      }),
      blocks: t.int({
        description: "The target the estimate is actually for (Core may widen it).",
        resolve: (e) => num(e.answer.blocks) ?? e.target,
      }),
      feeratePerKvB: t.field({
        type: Amount,
        nullable: true,
        description: "Per 1,000 virtual bytes; null when the node has too little data.",
        resolve: (e) => btc(e.answer.feerate),
      }),
      satPerVbyte: t.float({
        nullable: true,
        resolve: (e) => {
          const rate = btc(e.answer.feerate);
          return rate === null ? null : Number(rate) / 1000;
        },
      }),
      errors: t.stringList({
        resolve: (e) => (Array.isArray(e.answer.errors) ? e.answer.errors.map(String) : []),
      }),
    }),
  });

const MempoolSummaryRef = builder.objectRef<CoreObject>("MempoolSummary").implement({
  description: "The node's mempool (getmempoolinfo).",
  fields: (t) => ({
    transactionCount: t.int({ resolve: (o) => num(o.size) ?? 0 }),
    bytes: t.int({
      description: "Sum of the transactions' virtual sizes.",
      resolve: (o) => num(o.bytes) ?? 0,
    }),
    usage: t.int({
      description: "Memory the node uses for it.",
      resolve: (o) => num(o.usage) ?? 0,
    }),
    totalFee: t.field({ type: Amount, nullable: true, resolve: (o) => btc(o.total_fee) }),
    minFeePerKvB: t.field({
      type: Amount,
      nullable: true,
      description: "The lowest feerate the mempool admits now.",
      resolve: (o) => btc(o.mempoolminfee),
    }),
  }),
});

const ChainRef = builder.objectRef<CoreObject>("Chain").implement({
  description: "The network's chain as the full node sees it (getblockchaininfo).",
  fields: (t) => ({
    name: t.string({
      description: "Core's chain name: main, test, testnet4, signet, regtest.",
      resolve: (o) => str(o.chain) ?? "",
    }),
    height: t.int({ resolve: (o) => num(o.blocks) ?? 0 }),
    bestBlockHash: t.field({ type: "BlockHash", resolve: (o) => str(o.bestblockhash) ?? "" }),
    difficulty: t.float({ resolve: (o) => num(o.difficulty) ?? 0 }),
    medianTime: t.int({ resolve: (o) => num(o.mediantime) ?? 0 }),
    chainwork: t.string({ resolve: (o) => str(o.chainwork) ?? "" }),
    tip: t.field({
      type: BlockHeaderRef,
      description: "The tip's header.",
      extensions: { cost: { method: "getblockheader" } satisfies FieldCost },
      resolve: async (o, _args, ctx) =>
        objectOf(
          await ask(ctx.nodeCalls, {
            method: "getblockheader",
            params: [str(o.bestblockhash) ?? "", true],
          }),
          "header",
        ),
    }),
    mempool: t.field({
      type: MempoolSummaryRef,
      extensions: { cost: { method: "getmempoolinfo" } satisfies FieldCost },
      resolve: async (_o, _args, ctx) =>
        objectOf(
          await ask(ctx.nodeCalls, { method: "getmempoolinfo", params: [] }),
          "mempool summary",
        ),
    }),
  }),
});

builder.queryFields((t) => ({
  nodeBlock: t.field({
    type: NodeBlockRef,
    description:
      "A block of the best chain from the full node, by hash or height (getblock verbosity 1; a height costs a getblockhash too). The indexer's blocks are `block` and `block_by_pk`.",
    args: { hash: t.arg({ type: "BlockHash" }), height: t.arg.int() },
    extensions: { cost: { method: "getblock", alsoWhenArg: BY_HEIGHT } satisfies FieldCost },
    resolve: async (_root, { hash, height }, ctx) => {
      const blockhash = await blockHashOf(ctx, hash, height);
      return objectOf(
        await ask(ctx.nodeCalls, { method: "getblock", params: [blockhash, jsonNumber(1)] }),
        "block",
      );
    },
  }),
  blockHeader: t.field({
    type: BlockHeaderRef,
    description:
      "A block header of the best chain from the full node, by hash or height (getblockheader).",
    args: { hash: t.arg({ type: "BlockHash" }), height: t.arg.int() },
    extensions: { cost: { method: "getblockheader", alsoWhenArg: BY_HEIGHT } satisfies FieldCost },
    resolve: async (_root, { hash, height }, ctx) => {
      const blockhash = await blockHashOf(ctx, hash, height);
      return objectOf(
        await ask(ctx.nodeCalls, { method: "getblockheader", params: [blockhash, true] }),
        "header",
      );
    },
  }),
  chain: t.field({
    type: ChainRef,
    description:
      "The chain's tip, difficulty and (priced apart) mempool summary, from the full node.",
    extensions: { cost: { method: "getblockchaininfo" } satisfies FieldCost },
    resolve: async (_root, _args, ctx) =>
      objectOf(
        await ask(ctx.nodeCalls, { method: "getblockchaininfo", params: [] }),
        "chain state",
      ),
  }),
  feeEstimates: t.field({
    type: [FeeEstimateRef],
    description:
      "Core's estimatesmartfee for each confirmation target (one batch), each priced as one call.",
    args: { targets: t.arg.intList({ required: true }) },
    extensions: { cost: { method: "estimatesmartfee", listArg: "targets" } satisfies FieldCost },
    resolve: (_root, { targets }, ctx) =>
      Promise.all(
        targets.map(async (target) => ({
          target,
          answer: objectOf(
            await ask(ctx.nodeCalls, { method: "estimatesmartfee", params: [jsonNumber(target)] }),
            "fee estimate",
          ),
        })),
      ),
  }),
}));

builder.mutationFields((t) => ({
  broadcastTransaction: t.field({
    type: "TxId",
    description:
      "Broadcasts a signed transaction through the full node (sendrawtransaction, its default fee ceiling); its txid. The node's refusal is an error carrying Core's code (`rpcCode`: -25 missing inputs, -26 policy, -27 already in the chain) and is charged, as on the node route.",
    args: { hex: t.arg({ type: "Hex", required: true }) },
    extensions: { cost: { method: "sendrawtransaction" } satisfies FieldCost },
    resolve: async (_root, { hex }, ctx) => {
      const txid = await ask(ctx.nodeCalls, { method: "sendrawtransaction", params: [hex] });
      if (typeof txid !== "string")
        throw codedError("UPSTREAM_BAD_RESPONSE", "the node's txid is not a string");
      return txid;
    },
  }),
}));

const MerkleProofRef = builder
  .objectRef<{ blockHash: string; hex: string }>("MerkleProof")
  .implement({
    description:
      "Proof that a transaction is in its block: Core's gettxoutproof (a serialized CMerkleBlock: the header, the transaction count, the branch hashes and flag bits), which Core's verifytxoutproof and SPV libraries read.",
    fields: (t) => ({
      blockHash: t.field({ type: "BlockHash", resolve: (p) => p.blockHash }),
      hex: t.field({ type: "Hex", resolve: (p) => p.hex }),
    }),
  });

builder.objectField(TransactionRef, "merkleProof", (t) =>
  t.field({
    type: MerkleProofRef,
    nullable: true,
    description:
      "The proof of inclusion in its block (gettxoutproof, priced as such); null for a mempool or decoded transaction.",
    extensions: { cost: { method: "gettxoutproof" } satisfies FieldCost },
    resolve: async (m, _args, ctx) => {
      if (!m.block) return null;
      const hex = await ask(ctx.nodeCalls, {
        method: "gettxoutproof",
        params: [[m.tx.txid], m.block.hash],
      });
      if (typeof hex !== "string")
        throw codedError("UPSTREAM_BAD_RESPONSE", "the node's proof is not hex");
      return { blockHash: m.block.hash, hex };
    },
  }),
);
