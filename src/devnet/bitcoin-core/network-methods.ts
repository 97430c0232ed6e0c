import { amountToJson } from "../../bitcoin/index.ts";
import { MIN_RELAY_FEERATE } from "../mempool-policy.ts";
import type { CoreContext } from "./context.ts";
import type { RpcMethod } from "./http.ts";
import { readParams } from "./params.ts";

/** The Core release devnet's answers follow (getnetworkinfo's version and subversion). */
const CORE_VERSION = 290000;
const SUBVERSION = "/Satoshi:29.0.0/";
const PROTOCOL_VERSION = 70016;

function reach(name: string, reachable: boolean) {
  return { name, limited: !reachable, reachable, proxy: "", proxy_randomize_credentials: false };
}

/** Core's rpc/net.cpp getnetworkinfo and rpc/server.cpp uptime: a node with no peers. */
export function networkMethods(ctx: CoreContext): Record<string, RpcMethod> {
  return {
    uptime: (raw) => {
      readParams("uptime", raw, [], 0);
      return Math.floor((Date.now() - ctx.startedAt) / 1000);
    },
    getnetworkinfo: (raw) => {
      readParams("getnetworkinfo", raw, [], 0);
      return {
        version: CORE_VERSION,
        subversion: SUBVERSION,
        protocolversion: PROTOCOL_VERSION,
        // NODE_NETWORK | NODE_WITNESS | NODE_NETWORK_LIMITED | NODE_P2P_V2, Core's defaults.
        localservices: "0000000000000c09",
        localservicesnames: ["NETWORK", "WITNESS", "NETWORK_LIMITED", "P2P_V2"],
        localrelay: true,
        timeoffset: 0,
        networkactive: true,
        connections: 0,
        connections_in: 0,
        connections_out: 0,
        networks: [
          reach("ipv4", true),
          reach("ipv6", true),
          reach("onion", false),
          reach("i2p", false),
          reach("cjdns", false),
        ],
        relayfee: amountToJson(MIN_RELAY_FEERATE),
        incrementalfee: amountToJson(MIN_RELAY_FEERATE),
        localaddresses: [],
        warnings: [],
      };
    },
  };
}
