import type { Network } from "../../bitcoin/network.ts";
import { CHAIN_PARAMS } from "./chain-params.ts";
import { HeaderTree } from "./header-tree.ts";
import { type Checkpoint, checkpointRoot, contextFloor, genesisRoot } from "./root.ts";
import type { UpstreamHeaders } from "./upstream-headers.ts";
import { type SyncOutcome, syncUpstream } from "./upstream-sync.ts";
import { type Standing, standingOf } from "./upstream-verdict.ts";
import type { VerifiedChain } from "./verified-chain.ts";
import type { VerifiedHeader } from "./verified-header.ts";

export interface FollowerOptions {
  lagBlocksMax: number;
  batchHeadersMax: number;
  checkpoint?: Checkpoint | undefined;
  /** Told of each upstream whose standing changed (the pools, metrics and log act on it). */
  onStanding(upstream: UpstreamHeaders, standing: Standing): void;
  /** Told of a look that failed on the gateway's side (a bug, not an upstream's fault). */
  onError(err: unknown): void;
}

/** What the follower knows of one upstream. */
export interface Watched {
  readonly reader: UpstreamHeaders;
  standing: Standing | null;
  /** The height of the upstream's tip in the tree, after its last good look. */
  lastHeight: number | undefined;
  /** The hash of the tip it reported last, and whether that look is settled (in the tree or refused). */
  lastTip: string | null;
  settled: boolean;
  /** Looks in a row whose reads did not link (a chain moving under us, or one that lies). */
  moves: number;
}

/** Looks in a row that may find an upstream's chain moving before its links count as broken. */
const MOVES_MAX = 3;

/**
 * One network's verified chain, followed from every upstream: each look reads every upstream's
 * tip and what the tree lacks of its chain (upstream-sync.ts), then weighs each upstream against
 * the best chain (upstream-verdict.ts). Looks never overlap: one asked for while another runs
 * waits for it and runs after.
 */
export class ChainFollower implements VerifiedChain {
  readonly tree: HeaderTree;
  readonly watched: Watched[];
  private looking: Promise<void> | null = null;
  /** The look after the one under way, once someone asked for it. */
  private next: Promise<void> | null = null;
  private looksStarted = 0;
  private looksDone = 0;
  private readonly waiters = new Set<() => void>();

  constructor(
    readonly network: Network,
    readers: readonly UpstreamHeaders[],
    private readonly opts: FollowerOptions,
    nowS?: () => number,
  ) {
    this.tree = new HeaderTree(CHAIN_PARAMS[network], nowS);
    if (!opts.checkpoint) this.tree.seed(genesisRoot(this.tree.params));
    this.watched = readers.map((reader) => ({
      reader,
      standing: null,
      lastHeight: undefined,
      lastTip: null,
      settled: false,
      moves: 0,
    }));
  }

  tip(): VerifiedHeader | undefined {
    return this.tree.seeded ? this.tree.tip() : undefined;
  }

  atHeight(height: number): VerifiedHeader | undefined {
    return this.tree.atHeight(height);
  }

  byHash(hash: string): VerifiedHeader | undefined {
    return this.tree.onBest(hash);
  }

  /** Looks now and resolves once every upstream's latest tip is in the tree or refused. */
  async synced(timeoutMs = 10_000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    let check: () => void = () => {};
    // Only a look that starts after this call counts: one under way may predate what changed.
    const after = this.looksStarted + 1;
    const done = new Promise<void>((resolve) => {
      check = () => {
        if (this.looksDone >= after && this.caughtUp()) resolve();
      };
      this.waiters.add(check);
    });
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`${this.network}'s verified chain did not sync in ${timeoutMs} ms`)),
        timeoutMs,
      );
    });
    void this.look();
    try {
      await Promise.race([done, late]);
    } finally {
      clearTimeout(timer);
      this.waiters.delete(check);
    }
  }

  /**
   * One look at every upstream; when one is under way, one more after it, which the promise
   * waits for (the look under way may have started before what the caller wants seen).
   */
  look(): Promise<void> {
    if (this.looking) {
      this.next ??= this.looking.then(() => this.look());
      return this.next;
    }
    this.looking = this.lookOnce()
      .catch((err: unknown) => this.opts.onError(err))
      .finally(() => {
        this.looking = null;
        this.next = null;
      });
    return this.looking;
  }

  private caughtUp(): boolean {
    return this.tree.seeded && this.watched.every((w) => w.settled || w.lastTip === null);
  }

  private async lookOnce(): Promise<void> {
    this.looksStarted += 1;
    try {
      await this.lookAtAll();
    } finally {
      this.looksDone += 1;
      for (const check of [...this.waiters]) check();
    }
  }

  private async lookAtAll(): Promise<void> {
    if (!this.tree.seeded) await this.seedFromCheckpoint();
    if (!this.tree.seeded) return;
    const outcomes = await Promise.all(
      this.watched.map((w) =>
        syncUpstream(this.tree, w.reader, w.lastHeight, this.opts.batchHeadersMax),
      ),
    );
    for (const [i, w] of this.watched.entries()) this.record(w, outcomes[i]!);
    for (const [i, w] of this.watched.entries()) this.judge(w, outcomes[i]!);
  }

  private record(w: Watched, out: SyncOutcome): void {
    if (out.kind === "unreachable") return;
    w.lastTip = out.tip.hash;
    w.settled = out.kind === "ok" || out.kind === "invalid";
    if (out.kind === "ok") w.lastHeight = out.node.height;
    w.moves = out.kind === "moved" ? w.moves + 1 : 0;
  }

  /** Weighs each upstream once every look is in: the best chain may have moved meanwhile. */
  private judge(w: Watched, out: SyncOutcome): void {
    let standing: Standing | null = null;
    if (out.kind === "ok") {
      standing = standingOf(this.tree.params, this.tree.tip()!, out.node, this.opts.lagBlocksMax);
    } else if (out.kind === "invalid") {
      standing = { status: "inconsistent", reason: `it served an invalid header: ${out.reason}` };
    } else if (out.kind === "moved" && w.moves >= MOVES_MAX) {
      standing = { status: "inconsistent", reason: "its headers do not link" };
      w.settled = true;
    }
    if (!standing) return;
    const before = w.standing;
    w.standing = standing;
    // Told of a change of status or of reason; a consistent upstream's height moves every block.
    const reason = (s: Standing | null) => (s?.status === "inconsistent" ? s.reason : "");
    if (before?.status !== standing.status || reason(before) !== reason(standing)) {
      this.opts.onStanding(w.reader, standing);
    }
  }

  /** The checkpoint's context, from the first upstream that serves headers linking up to it. */
  private async seedFromCheckpoint(): Promise<void> {
    const c = this.opts.checkpoint!;
    const floor = contextFloor(this.tree.params, c);
    for (const w of this.watched) {
      let headers: Uint8Array[];
      try {
        headers = await w.reader.headers(floor, c.height - floor + 1);
      } catch {
        continue;
      }
      const root = checkpointRoot(this.tree.params, c, headers);
      if (typeof root === "string") {
        const reason = `its chain ${root}`;
        // Told once, not at every look that tries the checkpoint again.
        if (w.standing?.status !== "inconsistent" || w.standing.reason !== reason) {
          w.standing = { status: "inconsistent", reason };
          this.opts.onStanding(w.reader, w.standing);
        }
        continue;
      }
      this.tree.seed(root);
      return;
    }
  }
}
