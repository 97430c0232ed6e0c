import { jsonInteger } from "../jsonrpc/json.ts";
import type { BitcoinCorePool } from "../upstreams/bitcoin-core/pool.ts";

/**
 * A full node's block count, asked with `getblockcount` and trusted for ttlMs: what the node
 * route computes confirmations from when it answers out of the cache. Concurrent askers share one
 * call. A node that cannot be asked gives null, and the caller goes to the node for the whole
 * answer instead (and fails there the usual way).
 */
export class NodeTip {
  private height: number | null = null;
  private at = 0;
  private inflight: Promise<number | null> | null = null;

  constructor(
    private readonly pool: BitcoinCorePool,
    private readonly ttlMs: number,
  ) {}

  async current(): Promise<number | null> {
    if (this.height !== null && Date.now() - this.at < this.ttlMs) return this.height;
    this.inflight ??= this.pool.batch([{ method: "getblockcount", params: [] }]).then((out) => {
      this.inflight = null;
      const answer = out.ok ? out.answers[0] : undefined;
      const height = answer && "result" in answer ? jsonInteger(answer.result) : undefined;
      if (height === undefined) return null;
      this.height = height;
      this.at = Date.now();
      return height;
    });
    return this.inflight;
  }

  /** A height learned on the side (a node answer that implies the tip), kept if newer. */
  note(height: number): void {
    if (this.height === null || height >= this.height) {
      this.height = height;
      this.at = Date.now();
    }
  }
}
