import type { Prevout } from "../../bitcoin/prevouts.ts";
import { BitcoinCoreClient } from "../../upstreams/bitcoin-core/client.ts";
import type { DevnetCoreServer } from "../bitcoin-core/http.ts";
import type { DevnetChain } from "../chain.ts";
import { Daemon } from "./daemon.ts";
import { tipHeader } from "./headers.ts";
import { electrumMethods } from "./methods.ts";
import { scriptIndex } from "./script-index.ts";
import { statusOf } from "./scripthash.ts";
import { type DevnetElectrumServer, startElectrumTcp } from "./server.ts";

export interface DevnetElectrumOptions {
  /** Default 0: any free port. */
  port?: number;
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
  let server: DevnetElectrumServer | undefined;
  // Whoever changes the chain (devnet's Core, its block timer, `blockgate devnet mine`), the
  // headers subscribers hear of the new tip, as ElectrumX's are told after each block it indexes.
  const stopAnnouncing = chain.onTip(() => server?.announceTip());
  // Whatever changed a script's history (a transaction into the mempool, blocks, a
  // reorganisation), its subscribers are told its new status, as ElectrumX tells them.
  const stopNotifying = chain.onChange(() => server?.notifyScripthashes());
  const scripts = scriptIndex(chain, prevouts);
  const started = startElectrumTcp({
    methods: electrumMethods({
      chain,
      daemon,
      prevouts,
      scripts,
      // Asked only once a client is connected, so the server is listening by then.
      address: () => ({ host: server!.host, port: server!.port }),
    }),
    tip: () => tipHeader(chain),
    status: statusOf(scripts),
    ...opts,
    onClose: () => {
      stopAnnouncing();
      stopNotifying();
      return daemon.close();
    },
  });
  return started.then(
    (s) => {
      server = s;
      return s;
    },
    async (err: unknown) => {
      // Not listening (its port taken): nothing will close it, so it lets go of the chain now.
      stopAnnouncing();
      stopNotifying();
      await daemon.close();
      throw err;
    },
  );
}
