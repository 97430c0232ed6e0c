import type { NetworkName } from "../config/schema.ts";
import { isJsonNumber, isJsonObject, type Json } from "../jsonrpc/json.ts";
import type { BitcoinCorePool } from "../upstreams/bitcoin-core/pool.ts";
import { type ChainEvent, chainEventId } from "./types.ts";

interface Header {
  height: number;
  hash: string;
  previousHash: string | null;
  time: number;
}

/**
 * Follows one network's best chain through its full node and says what changed: polls
 * `getbestblockhash`, and when the tip moves walks the new tip's ancestry (`getblockheader`) down
 * to a block it already knew at that height — the fork point — so that the blocks it knew above
 * the fork come out as disconnected (old tip first) and the new ones as connected (lowest first).
 * It remembers the last `depthMax` heights; a reorganisation deeper than that, or a first look,
 * announces only what is new from the remembered part (a first look announces nothing: there was
 * no chain before to compare with).
 */
export class TipFollower {
  /** height → the best chain's block there, for the last `depthMax` heights seen. */
  private readonly known = new Map<number, Header>();
  private tip: Header | null = null;

  constructor(
    readonly network: NetworkName,
    private readonly pool: BitcoinCorePool,
    private readonly depthMax: number,
  ) {}

  /** One look at the node: the events since the last look (none on the first). */
  async poll(): Promise<ChainEvent[]> {
    const best = await this.call("getbestblockhash", []);
    if (typeof best !== "string") throw new Error("getbestblockhash answered no hash");
    if (this.tip?.hash === best) return [];
    const head = await this.header(best);
    if (!this.tip) {
      this.remember([head]);
      return [];
    }
    // Walk down from the new tip to a block of the chain we know (the fork point), or past what
    // we remember. A new tip we already know (the old tip's ancestor: blocks were invalidated)
    // is its own fork point, and connects nothing.
    const connected: Header[] = [];
    const floor = this.tip.height - this.depthMax;
    let cursor: Header | null = head;
    while (cursor && this.known.get(cursor.height)?.hash !== cursor.hash) {
      connected.push(cursor);
      cursor =
        cursor.previousHash !== null && cursor.height - 1 > floor
          ? await this.header(cursor.previousHash)
          : null;
    }
    const forkHeight = cursor ? cursor.height : connected[connected.length - 1]!.height - 1;
    const disconnected = [...this.known.values()]
      .filter((h) => h.height > forkHeight)
      .sort((a, b) => b.height - a.height);
    connected.reverse();
    for (const h of disconnected) this.known.delete(h.height);
    this.remember(connected);
    if (connected.length === 0) this.tip = head;
    return [
      ...disconnected.map((h) => this.event("disconnected", h)),
      ...connected.map((h) => this.event("connected", h)),
    ];
  }

  private remember(headers: Header[]): void {
    for (const h of headers) this.known.set(h.height, h);
    this.tip = headers[headers.length - 1] ?? this.tip;
    const below = (this.tip?.height ?? 0) - this.depthMax;
    for (const height of this.known.keys()) if (height <= below) this.known.delete(height);
  }

  private event(kind: ChainEvent["kind"], h: Header): ChainEvent {
    const e = { network: this.network, kind, ...h };
    return { id: chainEventId(), ...e };
  }

  private async header(hash: string): Promise<Header> {
    const answer = await this.call("getblockheader", [hash, true]);
    if (!isJsonObject(answer) || !isJsonNumber(answer.height) || !isJsonNumber(answer.time)) {
      throw new Error(`getblockheader ${hash} answered no header`);
    }
    return {
      height: Number(answer.height.value),
      hash,
      previousHash: typeof answer.previousblockhash === "string" ? answer.previousblockhash : null,
      time: Number(answer.time.value),
    };
  }

  private async call(method: string, params: Json[]): Promise<Json> {
    const out = await this.pool.batch([{ method, params }]);
    if (!out.ok) throw new Error(out.error.message);
    const answer = out.answers[0]!;
    if ("error" in answer) throw new Error(answer.error.message);
    return answer.result;
  }
}
