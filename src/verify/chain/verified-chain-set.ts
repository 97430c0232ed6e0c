import type { Logger } from "pino";
import type { Config, NetworkName } from "../../config/schema.ts";
import type { Metrics } from "../../log/metrics.ts";
import type { BitcoinCorePool } from "../../upstreams/bitcoin-core/pool.ts";
import type { ElectrumPool } from "../../upstreams/electrum/pool.ts";
import { ChainFollower } from "./chain-follower.ts";
import { coreHeaders, electrumHeaders, type UpstreamHeaders } from "./upstream-headers.ts";
import type { Standing } from "./upstream-verdict.ts";
import type { VerifiedChains } from "./verified-chains.ts";

export type VerificationConfig = Config["verification"];

/** The pools whose members the verified chains follow and hold out. */
export interface VerifiedPools {
  nodes: ReadonlyMap<NetworkName, BitcoinCorePool>;
  electrum: ReadonlyMap<NetworkName, ElectrumPool>;
}

/** One network's verification as /readyz shows it. */
export interface VerificationReport {
  tip: { height: number; hash: string } | null;
  upstreams: {
    backend: "node" | "electrum";
    name: string;
    status: "consistent" | "inconsistent" | "unknown";
    height?: number;
    reason?: string;
  }[];
}

/** Whether `network`'s chain is verified: mainnet only from a checkpoint unless told otherwise. */
export function verifies(config: VerificationConfig, network: NetworkName): boolean {
  if (!config.enabled) return false;
  const own = config.networks[network];
  return own?.enabled ?? (own?.checkpoint !== undefined || network !== "mainnet");
}

/**
 * Every network's verified chain in one gateway process: a follower per network over the members
 * of its node and Electrum pools, looking every `pollMs` and at each tip an Electrum server
 * announces. An upstream found inconsistent is held out of its pool (its breaker held open),
 * shown by `blockgate_upstream_inconsistent` and /readyz, and logged; it is put back once it
 * agrees again.
 */
export class VerifiedChainSet implements VerifiedChains {
  private readonly followers = new Map<NetworkName, ChainFollower>();
  private readonly stops: (() => void)[] = [];
  /** The upstreams held out now, as `backend network name`. */
  private readonly held = new Set<string>();

  constructor(
    private readonly config: VerificationConfig,
    networks: readonly NetworkName[],
    private readonly pools: VerifiedPools,
    private readonly metrics: Metrics,
    private readonly log: Logger,
  ) {
    for (const network of networks) {
      if (!verifies(config, network)) continue;
      const readers = [
        ...(pools.nodes.get(network)?.clients() ?? []).map(coreHeaders),
        ...(pools.electrum.get(network)?.upstreams ?? []).map(electrumHeaders),
      ];
      if (readers.length === 0) continue;
      const follower = new ChainFollower(network, readers, {
        lagBlocksMax: config.lagBlocksMax,
        batchHeadersMax: config.batchHeadersMax,
        checkpoint: config.networks[network]?.checkpoint,
        onStanding: (reader, standing) => this.stand(network, reader, standing),
        onError: (err) => log.error({ err, network }, "following the verified chain failed"),
      });
      this.followers.set(network, follower);
    }
  }

  get(network: NetworkName): ChainFollower | undefined {
    return this.followers.get(network);
  }

  /** Calls `fn` whenever `network`'s verified tip changes; returns the way to stop. */
  onTip(network: NetworkName, fn: () => void): () => void {
    return this.followers.get(network)?.tree.onTip(() => fn()) ?? (() => {});
  }

  /** Starts looking: now, every `pollMs`, and at each tip an Electrum server announces. */
  start(): void {
    for (const [network, follower] of this.followers) {
      this.stops.push(
        follower.tree.onTip((tip) => this.metrics.verifiedHeight.set({ network }, tip.height)),
      );
      const tip = follower.tip();
      if (tip) this.metrics.verifiedHeight.set({ network }, tip.height);
      const timer = setInterval(() => void follower.look(), this.config.pollMs);
      timer.unref();
      this.stops.push(() => clearInterval(timer));
      const electrum = this.pools.electrum.get(network);
      if (electrum) this.stops.push(electrum.onTip(() => void follower.look()));
      void follower.look();
    }
  }

  /** What /readyz shows of each verified network. */
  report(): Partial<Record<NetworkName, VerificationReport>> {
    const out: Partial<Record<NetworkName, VerificationReport>> = {};
    for (const [network, follower] of this.followers) {
      const tip = follower.tip();
      out[network] = {
        tip: tip ? { height: tip.height, hash: tip.hash } : null,
        upstreams: follower.watched.map((w) => ({
          backend: w.reader.kind,
          name: w.reader.name,
          status: w.standing?.status ?? "unknown",
          ...(w.standing?.height !== undefined ? { height: w.standing.height } : {}),
          ...(w.standing?.status === "inconsistent" ? { reason: w.standing.reason } : {}),
        })),
      };
    }
    return out;
  }

  close(): void {
    for (const stop of this.stops.splice(0)) stop();
  }

  private stand(network: NetworkName, reader: UpstreamHeaders, standing: Standing): void {
    const pool =
      reader.kind === "node" ? this.pools.nodes.get(network) : this.pools.electrum.get(network);
    const labels = { backend: reader.kind, network, upstream: reader.name };
    const key = `${reader.kind} ${network} ${reader.name}`;
    if (standing.status === "inconsistent") {
      pool?.setInconsistent(reader.name, standing.reason);
      this.metrics.upstreamInconsistent.set(labels, 1);
      this.held.add(key);
      this.log.warn(
        { ...labels, reason: standing.reason },
        "upstream held out: its chain disagrees with the verified chain",
      );
      return;
    }
    this.metrics.upstreamInconsistent.set(labels, 0);
    if (!this.held.delete(key)) return;
    pool?.setInconsistent(reader.name, null);
    this.log.info(labels, "upstream put back: it agrees with the verified chain again");
  }
}
