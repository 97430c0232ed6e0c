import type { Network, Prevout } from "../../bitcoin/index.ts";
import { RPC_INVALID_ADDRESS_OR_KEY } from "../../protocol/core/params.ts";
import type { Json } from "../../protocol/json/json.ts";
import type { DevnetChain } from "../chain.ts";
import { DevnetUtxos } from "../utxo.ts";
import { blockMethods } from "./block-methods.ts";
import { blockStatsMethod } from "./block-stats-method.ts";
import { chainInfoMethods } from "./chain-info-methods.ts";
import type { CoreContext } from "./context.ts";
import type { RpcMethod } from "./http.ts";
import { mempoolMethods } from "./mempool-methods.ts";
import { miningMethods } from "./mining-methods.ts";
import { networkMethods } from "./network-methods.ts";
import { packageMethods } from "./package-methods.ts";
import { readParams } from "./params.ts";
import { RpcError } from "./rpc-error.ts";
import { txReadMethods } from "./tx-methods.ts";
import { txSubmitMethods } from "./tx-submit-methods.ts";
import { utilMethods } from "./util-methods.ts";
import { utxoMethods } from "./utxo-methods.ts";

/**
 * devnet's Core methods over one network's devnet chain, gathered from the files of each area.
 * The devnet-only ones (invalidateblock/reconsiderblock to stage a reorganisation, the mining
 * methods) are Core's too, and the gateway refuses them.
 */
export function coreMethods(
  chain: DevnetChain,
  network: Network,
  prevouts: (txid: string, vout: number) => Prevout | undefined,
): Record<string, RpcMethod> {
  const ctx: CoreContext = {
    chain,
    network,
    prevouts,
    utxos: new DevnetUtxos(chain),
    startedAt: Date.now(),
    entered: new Map(),
  };
  return {
    ...blockMethods(ctx),
    ...blockStatsMethod(ctx),
    ...chainInfoMethods(ctx),
    ...mempoolMethods(ctx),
    ...utxoMethods(ctx),
    ...utilMethods(ctx),
    ...networkMethods(ctx),
    ...txReadMethods(ctx),
    ...txSubmitMethods(ctx),
    ...packageMethods(ctx),
    ...miningMethods(ctx),
    // Core's own way to stage a reorganisation (tests of the gateway's cache eviction).
    invalidateblock: (raw) => {
      const [hash] = readParams("invalidateblock", raw, [["blockhash", "string"]], 1);
      if (!chain.invalidateBlock((hash as string).toLowerCase())) {
        throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, "Block not found");
      }
      chain.tipChanged();
      return null;
    },
    reconsiderblock: () => {
      chain.reconsiderBlocks();
      chain.tipChanged();
      return null;
    },
  } satisfies Record<string, (raw: Json[] | { [key: string]: Json }) => unknown>;
}
