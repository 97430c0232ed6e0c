import { randomBytes } from "node:crypto";
import type { NetworkName } from "../config/schema.ts";
import { type DevnetCoreServer, startCoreHttp } from "./bitcoin-core/http.ts";
import { coreMethods } from "./bitcoin-core/methods.ts";
import { loadDevnetChain } from "./chain.ts";
import { type DevnetIndexerServer, startDevnetIndexer } from "./indexer/server.ts";
import { chainPrevouts } from "./prevouts.ts";

export interface Devnet {
  /** One emulated Bitcoin Core per network, each on its own port. */
  cores: Map<NetworkName, DevnetCoreServer>;
  /** One Hasura-style indexer per network (GraphQL at `url`, admin secret `secret`). */
  indexers: Map<NetworkName, DevnetIndexerServer>;
  close(): Promise<void>;
}

/**
 * Starts devnet's upstreams (a Bitcoin Core and an indexer per network) on 127.0.0.1, port 0. They serve real mainnet blocks (data/chain);
 * credentials are random per start, so nothing but the gateway that started them can call in.
 */
export async function startDevnet(networks: readonly NetworkName[]): Promise<Devnet> {
  const chain = loadDevnetChain();
  const prevouts = chainPrevouts(chain);
  const cores = new Map<NetworkName, DevnetCoreServer>();
  const indexers = new Map<NetworkName, DevnetIndexerServer>();
  for (const network of networks) {
    indexers.set(
      network,
      await startDevnetIndexer({ chain, secret: randomBytes(16).toString("hex") }),
    );
    cores.set(
      network,
      await startCoreHttp({
        methods: coreMethods(chain, network, prevouts),
        user: "devnet",
        password: randomBytes(16).toString("hex"),
      }),
    );
  }
  return {
    cores,
    indexers,
    async close() {
      await Promise.all([...cores.values(), ...indexers.values()].map((c) => c.close()));
    },
  };
}
