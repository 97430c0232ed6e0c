import { randomBytes } from "node:crypto";
import type { NetworkName } from "../config/schema.ts";
import { type DevnetCoreServer, startCoreHttp } from "./bitcoin-core/http.ts";
import { coreMethods } from "./bitcoin-core/methods.ts";
import { BlockProducer } from "./block-producer.ts";
import { startBlockTimer } from "./block-timer.ts";
import { type DevnetChain, newDevnetChain } from "./chain.ts";
import type { DevnetElectrumServer } from "./electrum/server.ts";
import { type DevnetElectrumOptions, startDevnetElectrum } from "./electrum/start.ts";
import { type DevnetEsploraServer, startDevnetEsplora } from "./esplora/server.ts";
import { type DevnetIndexerServer, startDevnetIndexer } from "./indexer/server.ts";
import { chainPrevouts } from "./prevouts.ts";

export interface Devnet {
  /** One emulated Bitcoin Core per network, each on its own port. */
  cores: Map<NetworkName, DevnetCoreServer>;
  /** One Hasura-style indexer per network (GraphQL at `url`, admin secret `secret`). */
  indexers: Map<NetworkName, DevnetIndexerServer>;
  /** One emulated ElectrumX per network, whose daemon is that network's Core. */
  electrum: Map<NetworkName, DevnetElectrumServer>;
  /** One emulated Esplora (electrs' REST API) per network, whose daemon is that network's Core. */
  esplora: Map<NetworkName, DevnetEsploraServer>;
  /** Blocks on each network's chain on command (`blockgate devnet mine`, `devnet reorg`). */
  producers: Map<NetworkName, BlockProducer>;
  close(): Promise<void>;
}

export interface DevnetOptions {
  electrum?: DevnetElectrumOptions;
  /**
   * A chain of the caller's (tests that mine a block), served for its own network
   * (`chain.network`); every other network gets a chain of this devnet's own (newDevnetChain).
   */
  chain?: DevnetChain;
  /** A block on each of `blockNetworks`' tips this often (config `devnet.blockIntervalMs`); 0: never. */
  blockIntervalMs?: number;
  /** The networks the timer mines on (those devnet serves); default regtest. */
  blockNetworks?: readonly NetworkName[];
}

/**
 * Starts devnet's upstreams (a Bitcoin Core, an ElectrumX, an Esplora and an indexer per network) on
 * 127.0.0.1, port 0, each network's over its own chain (mainnet: the real blocks of data/chain;
 * the others: their genesis block and what devnet's Core produces on them);
 * credentials are random per start, so nothing but the gateway that started them can call in.
 */
export async function startDevnet(
  networks: readonly NetworkName[],
  opts: DevnetOptions = {},
): Promise<Devnet> {
  const cores = new Map<NetworkName, DevnetCoreServer>();
  const indexers = new Map<NetworkName, DevnetIndexerServer>();
  const electrum = new Map<NetworkName, DevnetElectrumServer>();
  const esplora = new Map<NetworkName, DevnetEsploraServer>();
  const producers = new Map<NetworkName, BlockProducer>();
  for (const network of networks) {
    const chain = opts.chain?.network === network ? opts.chain : newDevnetChain(network);
    const prevouts = chainPrevouts(chain);
    indexers.set(
      network,
      await startDevnetIndexer({ chain, secret: randomBytes(16).toString("hex") }),
    );
    const core = await startCoreHttp({
      methods: coreMethods(chain, network, prevouts),
      user: "devnet",
      password: randomBytes(16).toString("hex"),
    });
    cores.set(network, core);
    electrum.set(network, await startDevnetElectrum(chain, core, prevouts, opts.electrum));
    esplora.set(network, await startDevnetEsplora({ chain, network, prevouts, core }));
    producers.set(network, new BlockProducer(chain, prevouts));
  }
  const timed = [...new Set<NetworkName>(opts.blockNetworks ?? ["regtest"])].flatMap(
    (n) => producers.get(n) ?? [],
  );
  const timer = startBlockTimer(timed, opts.blockIntervalMs ?? 0);
  return {
    cores,
    indexers,
    electrum,
    esplora,
    producers,
    async close() {
      timer.stop();
      const servers = [...electrum.values(), ...indexers.values(), ...esplora.values()];
      await Promise.all(servers.map((e) => e.close()));
      await Promise.all([...cores.values()].map((c) => c.close()));
    },
  };
}
