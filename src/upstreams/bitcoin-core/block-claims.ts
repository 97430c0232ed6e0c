import { fromHex } from "../../bitcoin/hex.ts";
import { readMerkleProof } from "../../bitcoin/merkle-proof.ts";
import { gatewayError } from "../../protocol/errors/codes.ts";
import { isJsonObject, type Json } from "../../protocol/json/json.ts";
import { resultScalars, withIntegerMember } from "../../protocol/json/raw-answer.ts";
import type { RpcAnswer, RpcCall } from "../../protocol/json/types.ts";
import type { Verified } from "../../protocol/verified.ts";
import { LruMap } from "../../util/lru.ts";
import {
  type ChainView,
  confirmationsOn,
  type Membership,
  type MembershipProof,
  proofOn,
} from "../chain-view.ts";
import type { PoolOutcome } from "./combine.ts";

/** Proven memberships kept: a block's transactions never change, only whether it is on the chain. */
const PROVEN_MAX = 100_000;

/** Sends calls through the pool (failover and the pool's answer checks included). */
export type Ask = (calls: RpcCall[]) => Promise<PoolOutcome>;

/** A request's answers with how far each was verified, confirmations from the verified tip. */
export type ClaimsOutcome =
  | { ok: true; answers: RpcAnswer[]; verified: Verified[]; upstream: string }
  | Extract<PoolOutcome, { ok: false }>;

interface Pending {
  at: number;
  txid: string;
  blockhash: string;
}

/**
 * What a node's answers claim about the chain, checked against the network's verified header
 * chain: a confirmed transaction's block by a merkle proof (gettxoutproof, one call per block,
 * all in one batch; proven memberships kept), a header or block by its place on that chain. Each
 * verified answer's `confirmations` are counted from the verified tip. A claim the node cannot
 * prove fails the request: it is never served, nor cached.
 */
export class CoreBlockClaims {
  private chain: ChainView | undefined;
  private readonly proven = new LruMap<string, Membership>(PROVEN_MAX);

  /** The network's verified chain, once there is one (the composition root sets it). */
  against(chain: ChainView | undefined): void {
    this.chain = chain;
  }

  /** Whether there is a verified chain to check against (verification is on for the network). */
  get checking(): boolean {
    return this.chain !== undefined;
  }

  /**
   * The confirmations of a block at `height` counted from the verified tip, when the verified
   * chain has that block there (an answer the cache kept, checked again as it is served).
   */
  confirmationsOf(blockhash: string, height: number): number | undefined {
    const chain = this.chain;
    const header = chain?.byHash(blockhash);
    return chain && header?.height === height ? confirmationsOn(chain, header) : undefined;
  }

  /** A membership proven earlier, with its verified header (the unified API's verification). */
  proof(txid: string, blockhash: string): MembershipProof | null {
    return proofOn(this.chain, this.proven, txid, blockhash);
  }

  async check(
    calls: readonly RpcCall[],
    out: { answers: RpcAnswer[]; upstream: string },
    ask: Ask,
  ): Promise<ClaimsOutcome> {
    const answers = out.answers.slice();
    const pending: Pending[] = [];
    const verified = calls.map((call, i) => this.level(call, answers, i, pending));
    if (pending.length > 0) {
      const failed = await this.prove(pending, answers, verified, ask);
      if (failed) return failed;
    }
    return { ok: true, answers, verified, upstream: out.upstream };
  }

  /** One answer's level as far as it is known without asking; a membership to prove is pending. */
  private level(call: RpcCall, answers: RpcAnswer[], i: number, pending: Pending[]): Verified {
    const answer = answers[i]!;
    if ("error" in answer) return "unchecked";
    const { method } = call;
    const asked = call.params[0];
    if (method === "getrawtransaction" && typeof asked === "string") {
      const result = resultScalars(answer);
      const blockhash = isJsonObject(result) ? result.blockhash : undefined;
      if (typeof blockhash !== "string") return "bytes";
      const on = this.chain?.byHash(blockhash);
      if (!on) return "partial";
      const txid = asked.toLowerCase();
      if (this.proven.get(`${txid}${blockhash}`)) {
        answers[i] = this.confirmed(answer, blockhash);
        return "chain";
      }
      pending.push({ at: i, txid, blockhash });
      return "partial";
    }
    if (method === "getblockheader" || method === "getblock" || method === "gettxoutproof") {
      const named = method === "gettxoutproof" ? proofBlock(resultScalars(answer)) : asked;
      const hash = typeof named === "string" ? named.toLowerCase() : undefined;
      if (hash === undefined || !this.chain?.byHash(hash)) return "bytes";
      answers[i] = this.confirmed(answer, hash);
      return "chain";
    }
    return "unchecked";
  }

  private confirmed(answer: RpcAnswer, blockhash: string): RpcAnswer {
    const chain = this.chain;
    const header = chain?.byHash(blockhash);
    if (!chain || !header) return answer;
    return withIntegerMember(answer, "confirmations", confirmationsOn(chain, header));
  }

  /**
   * The pending memberships proven, one gettxoutproof per block in one batch (the pool checks
   * each proof holds for its txids and block): a node that says it cannot fails the request.
   */
  private async prove(
    pending: Pending[],
    answers: RpcAnswer[],
    verified: Verified[],
    ask: Ask,
  ): Promise<Extract<PoolOutcome, { ok: false }> | null> {
    const blocks = [...new Set(pending.map((p) => p.blockhash))];
    const calls = blocks.map((b) => ({
      method: "gettxoutproof",
      params: [[...new Set(pending.filter((p) => p.blockhash === b).map((p) => p.txid))], b],
    }));
    const out = await ask(calls);
    // No proof to be had now (no node answered): the claims stay unchecked, said so.
    if (!out.ok) return null;
    for (const [k, blockhash] of blocks.entries()) {
      const answer = out.answers[k]!;
      if ("error" in answer || typeof answer.result !== "string") {
        return claimFailed(out.upstream, blockhash, "error" in answer ? answer.error.message : "");
      }
      for (const m of readMerkleProof(fromHex(answer.result)).matched) {
        this.proven.set(`${m.txid}${blockhash}`, { blockhash, pos: m.pos, branch: m.branch });
      }
    }
    for (const p of pending) {
      answers[p.at] = this.confirmed(answers[p.at]!, p.blockhash);
      verified[p.at] = "chain";
    }
    return null;
  }
}

function proofBlock(result: Json): string | undefined {
  if (typeof result !== "string") return undefined;
  try {
    return readMerkleProof(fromHex(result)).header.hash;
  } catch {
    return undefined;
  }
}

function claimFailed(upstream: string, blockhash: string, why: string) {
  return {
    ok: false as const,
    error: gatewayError(
      "UPSTREAM_BAD_RESPONSE",
      "the full node's block claim failed verification",
      {
        detail: `${upstream}: no proof that the transaction is in block ${blockhash}${why ? `: ${why}` : ""}`,
      },
    ),
  };
}
