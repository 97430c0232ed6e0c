import type { NetworkName } from "../config/schema.ts";
import type { Devnet } from "./devnet.ts";

/** Where one network's servers listen and what they want, as a gateway's config needs them. */
export interface DevnetEndpoints {
  /** Bitcoin Core's JSON-RPC over HTTP, basic auth. */
  core: { url: string; user: string; password: string };
  /** ElectrumX's newline-delimited JSON-RPC over TCP (`tcp://host:port`). */
  electrum: { url: string };
  /** The Hasura-style GraphQL endpoint; `secret` goes in `x-hasura-admin-secret`. */
  indexer: { url: string; secret: string };
  /** electrs' REST API (`…/api`), open to anyone who reaches it, as electrs is. */
  esplora: { url: string };
}

/** Every network's endpoints, in the order devnet started them. */
export function devnetEndpoints(devnet: Devnet): Partial<Record<NetworkName, DevnetEndpoints>> {
  const out: Partial<Record<NetworkName, DevnetEndpoints>> = {};
  for (const [network, core] of devnet.cores) {
    const indexer = devnet.indexers.get(network)!;
    out[network] = {
      core: { url: core.url, user: core.user, password: core.password },
      electrum: { url: devnet.electrum.get(network)!.url },
      indexer: { url: indexer.url, secret: indexer.secret },
      esplora: { url: devnet.esplora.get(network)!.url },
    };
  }
  return out;
}
