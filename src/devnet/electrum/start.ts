import type { Prevout } from "../../bitcoin/prevouts.ts";
import { BitcoinCoreClient } from "../../upstreams/bitcoin-core/client.ts";
import type { DevnetCoreServer } from "../bitcoin-core/http.ts";
import type { DevnetChain } from "../chain.ts";
import { Daemon } from "./daemon.ts";
import { historyIndex } from "./history.ts";
import { electrumMethods, tipHeader } from "./methods.ts";
import { type DevnetElectrumServer, startElectrumTcp } from "./server.ts";

export interface DevnetElectrumOptions {
  recvBytesMax?: number;
  sendBytesMax?: number;
  idleTimeoutMs?: number;
}

/**
 * devnet's ElectrumX for one network: its daemon is that network's devnet Core, reached over HTTP
 * JSON-RPC with the gateway's Core client, so daemon errors travel the real path.
 */
export function startDevnetElectrum(
  chain: DevnetChain,
  core: DevnetCoreServer,
  prevouts: (txid: string, vout: number) => Prevout | undefined,
  opts: DevnetElectrumOptions = {},
): Promise<DevnetElectrumServer> {
  const daemon = new Daemon(
    new BitcoinCoreClient({
      url: core.url,
      user: core.user,
      password: core.password,
      timeoutMs: 30_000,
      connections: 4,
    }),
  );
  return startElectrumTcp({
    methods: electrumMethods(chain, daemon, historyIndex(chain, prevouts)),
    tip: () => tipHeader(chain),
    ...opts,
    onClose: () => daemon.close(),
  });
}
