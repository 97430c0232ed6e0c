import { ELECTRUM_SIGNATURES } from "../../protocol/electrum/args.ts";
import { BAD_REQUEST } from "../../protocol/electrum/params.ts";
import { pyStr } from "../../protocol/electrum/python-text.ts";
import {
  ELECTRUMX_PROTOCOL_MAX,
  ELECTRUMX_PROTOCOL_MIN,
  negotiateProtocol,
  versionString,
} from "../../protocol/electrum/version.ts";
import { isJsonNumber, type Json, jsonNumber } from "../../protocol/json/json.ts";
import { feeMethods } from "./fees.ts";
import { checked, type ElectrumBackend, type Handler } from "./handler.ts";
import { headerMethods } from "./headers.ts";
import { ElectrumRpcError } from "./rpc-error.ts";
import { scripthashMethods } from "./scripthash.ts";
import { transactionMethods } from "./transactions.ts";

export const SERVER_VERSION = "ElectrumX 1.18.0 (blockgate devnet)";

/**
 * The methods devnet's Electrum server answers: Electrum protocol 1.4's read API with
 * ElectrumX's checks and words. Transactions, fees and broadcasts go to the daemon (devnet's
 * Core over HTTP, as ElectrumX proxies bitcoind); headers, merkle proofs and script histories
 * come from the chain store, as ElectrumX serves them from its own database.
 */
export function electrumMethods(backend: ElectrumBackend): Record<string, Handler> {
  return {
    ...serverMethods(backend),
    ...headerMethods(backend.chain),
    ...scripthashMethods(backend.scripts),
    ...transactionMethods(backend),
    ...feeMethods(backend),
  };
}

function serverMethods({ chain, address }: ElectrumBackend): Record<string, Handler> {
  return {
    "server.version": {
      ...ELECTRUM_SIGNATURES["server.version"]!,
      run(session, [clientName = "", protocolVersion = null]) {
        if (session.svSeen) throw new ElectrumRpcError(BAD_REQUEST, "server.version already sent");
        session.svSeen = true;
        if (truthy(clientName)) session.client = pyStr(clientName).slice(0, 17);
        const negotiated = negotiateProtocol(
          protocolVersion,
          ELECTRUMX_PROTOCOL_MIN,
          ELECTRUMX_PROTOCOL_MAX,
        );
        if (!negotiated) {
          throw new ElectrumRpcError(
            BAD_REQUEST,
            `unsupported protocol version: ${pyStr(protocolVersion)}`,
            true,
          );
        }
        session.protocol = versionString(negotiated);
        return [SERVER_VERSION, session.protocol];
      },
    },
    "server.ping": checked("server.ping", () => null),
    "server.banner": checked(
      "server.banner",
      () => `You are connected to an ${SERVER_VERSION} server.`,
    ),
    // ElectrumX with its defaults: no DONATION_ADDRESS, and peer discovery off (devnet has no
    // peers), so it lists none and turns every add_peer down.
    "server.donation_address": checked("server.donation_address", () => ""),
    "server.peers.subscribe": checked("server.peers.subscribe", () => []),
    "server.add_peer": checked("server.add_peer", () => false),
    // ElectrumX's server_features, keys in its order; genesis_hash is this network's block 0.
    "server.features": checked("server.features", () => {
      const { host, port } = address();
      return {
        hosts: { [host]: { tcp_port: jsonNumber(port) } },
        pruning: null,
        server_version: SERVER_VERSION,
        protocol_min: versionString(ELECTRUMX_PROTOCOL_MIN),
        protocol_max: versionString(ELECTRUMX_PROTOCOL_MAX),
        genesis_hash: chain.byHeight.get(0)!.block.hash,
        hash_function: "sha256",
        services: [`tcp://${host}:${port}`],
      };
    }),
  };
}

function truthy(value: Json | undefined): boolean {
  if (value === null || value === undefined || value === false || value === "") return false;
  if (isJsonNumber(value)) return Number(value.value) !== 0;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "object") return Object.keys(value).length > 0;
  return true;
}
