/** Where one network's servers listen (0: any free port). */
export interface DevnetPorts {
  core: number;
  electrum: number;
  indexer: number;
  esplora: number;
}

/** Each network takes this many ports from a port base: Core, Electrum, indexer, Esplora. */
export const DEVNET_PORTS_PER_NETWORK = 4;

/**
 * The ports of the `index`-th network served: from `portBase`, each network in turn takes its
 * Core's, its Electrum server's, its indexer's and its Esplora's, so a fixed base gives stable,
 * documented URLs.
 * Without a base, every server takes any free port.
 */
export function devnetPorts(portBase: number | undefined, index: number): DevnetPorts {
  if (portBase === undefined) return { core: 0, electrum: 0, indexer: 0, esplora: 0 };
  const first = portBase + index * DEVNET_PORTS_PER_NETWORK;
  return { core: first, electrum: first + 1, indexer: first + 2, esplora: first + 3 };
}
