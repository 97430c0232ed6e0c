import type { NetworkName } from "../config/schema.ts";
import type { Header, HeadersSource } from "./headers-source.ts";
import { type ChainEvent, chainEventId } from "./types.ts";

/**
 * Follows one network's best chain through a headers source (a full node, or an Electrum server
 * where there is none) and says what changed: asks for the tip, and when it moved walks the new
 * tip's ancestry down to a block it already knew at that height — the fork point — so that the
 * blocks it knew above the fork come out as disconnected (old tip first) and the new ones as
 * connected (lowest first). It remembers the last `depthMax` heights; a reorganisation deeper
 * than that, or a first look, announces only what is new from the remembered part (a first look
 * announces nothing: there was no chain before to compare with).
 */
export class TipFollower {
  /** height → the best chain's block there, for the last `depthMax` heights seen. */
  private readonly known = new Map<number, Header>();
  private tip: Header | null = null;

  constructor(
    readonly network: NetworkName,
    private readonly source: HeadersSource,
    private readonly depthMax: number,
  ) {}

  /** One look at the source: the events since the last look (none on the first). */
  async poll(): Promise<ChainEvent[]> {
    const head = await this.source.tip(this.tip?.hash ?? null);
    if (!head) return [];
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
      const previousHash: string | null = cursor.previousHash;
      cursor =
        previousHash !== null && cursor.height - 1 > floor
          ? await this.source.parent({ ...cursor, previousHash })
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
}
