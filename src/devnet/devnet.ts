import { randomBytes } from "node:crypto";
import type { NetworkName } from "../config/schema.ts";
import { type DevnetCoreServer, type RpcMethod, startCoreHttp } from "./bitcoin-core/http.ts";
import { coreMethods } from "./bitcoin-core/methods.ts";
import { BlockProducer } from "./block-producer.ts";
import { startBlockTimer } from "./block-timer.ts";
import { type DevnetChain, newDevnetChain } from "./chain.ts";
import type { DevnetElectrumServer } from "./electrum/server.ts";
import { type DevnetElectrumOptions, startDevnetElectrum } from "./electrum/start.ts";
import { type DevnetEsploraServer, startDevnetEsplora } from "./esplora/server.ts";
import { type DevnetIndexerServer, startDevnetIndexer } from "./indexer/server.ts";
import { type DevnetPorts, devnetPorts } from "./ports.ts";
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
  /** Fixed ports from this one, in the order `devnetPorts` gives; absent: any free ports. */
  portBase?: number;
}

/** One network's servers and its block producer. */
interface NetworkServers {
  core: DevnetCoreServer;
  electrum: DevnetElectrumServer;
  indexer: DevnetIndexerServer;
  esplora: DevnetEsploraServer;
  producer: BlockProducer;
}

type Closable = { close(): Promise<void> };

/**
 * Starts devnet's upstreams (a Bitcoin Core, an ElectrumX, an indexer and an Esplora per network) on
 * 127.0.0.1, on any free ports unless `portBase` is given, each network's over its own chain
 * (mainnet: the real blocks of data/chain; the others: their genesis block and what devnet's Core
 * produces on them); credentials are random per start, so nothing but whoever started them, and
 * those it tells, can call in. A server that cannot listen closes those already started.
 */
export async function startDevnet(
  networks: readonly NetworkName[],
  opts: DevnetOptions = {},
): Promise<Devnet> {
  const servers = new Map<NetworkName, NetworkServers>();
  const started: Closable[] = [];
  try {
    for (const [i, network] of networks.entries()) {
      const ports = devnetPorts(opts.portBase, i);
      servers.set(network, await startNetwork(network, opts, ports, started));
    }
  } catch (err) {
    // Latest first: each Electrum server and Esplora before the Core that is their daemon.
    for (const server of started.reverse()) await server.close();
    throw err;
  }
  const each = <T>(pick: (s: NetworkServers) => T) =>
    new Map([...servers].map(([network, s]) => [network, pick(s)]));
  const producers = each((s) => s.producer);
  const timed = [...new Set<NetworkName>(opts.blockNetworks ?? ["regtest"])].flatMap(
    (n) => producers.get(n) ?? [],
  );
  const timer = startBlockTimer(timed, opts.blockIntervalMs ?? 0);
  const electrum = each((s) => s.electrum);
  const indexers = each((s) => s.indexer);
  const esplora = each((s) => s.esplora);
  const cores = each((s) => s.core);
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

/** Starts one network's indexer, Core, Electrum server and Esplora, adding each to `started`. */
async function startNetwork(
  network: NetworkName,
  opts: DevnetOptions,
  ports: DevnetPorts,
  started: Closable[],
): Promise<NetworkServers> {
  const chain = opts.chain?.network === network ? opts.chain : newDevnetChain(network);
  const prevouts = chainPrevouts(chain);
  const listening = async <T extends Closable>(what: string, port: number, start: Promise<T>) => {
    const server = await start.catch((err: NodeJS.ErrnoException) => {
      throw err.code === "EADDRINUSE"
        ? new Error(`${network}'s ${what} cannot listen: port ${port} is in use`)
        : err;
    });
    started.push(server);
    return server;
  };
  const secret = randomBytes(16).toString("hex");
  const indexer = await listening(
    "indexer",
    ports.indexer,
    startDevnetIndexer({ chain, secret, port: ports.indexer }),
  );
  const methods = coreMethods(chain, network, prevouts);
  const core = await listening(
    "Core",
    ports.core,
    startCoreHttp({
      methods,
      user: "devnet",
      password: randomBytes(16).toString("hex"),
      port: ports.core,
    }),
  );
  const electrum = await listening(
    "Electrum server",
    ports.electrum,
    startDevnetElectrum(chain, core, prevouts, { ...opts.electrum, port: ports.electrum }),
  );
  const esplora = await listening(
    "Esplora",
    ports.esplora,
    startDevnetEsplora({ chain, network, prevouts, core, port: ports.esplora }),
  );
  return {
    core,
    electrum,
    indexer,
    esplora,
    producer: new BlockProducer(chain, prevouts, broadcastThrough(methods)),
  };
}

/** A raw transaction through devnet's Core's sendrawtransaction (its checks, its mempool). */
function broadcastThrough(methods: Record<string, RpcMethod>): (hex: string) => string {
  return (hex) => String(methods.sendrawtransaction!([hex]));
}
