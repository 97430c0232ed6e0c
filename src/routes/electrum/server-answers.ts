import { genesisBlock } from "../../bitcoin/genesis.ts";
import { ELECTRUMX_PROTOCOL_MIN, versionString } from "../../protocol/electrum/version.ts";
import { gatewayError } from "../../protocol/errors/codes.ts";
import { type Json, jsonNumber } from "../../protocol/json/json.ts";
import type { ElectrumServerVersion } from "../../upstreams/electrum/connection.ts";
import type { ElectrumPool } from "../../upstreams/electrum/pool.ts";
import type { CallResult } from "../json-rpc/mirror.ts";
import type { ElectrumContext } from "./services.ts";

/** The `upstream` of an answer the gateway gives itself, for the audit record. */
export const GATEWAY_UPSTREAM = "gateway";

/**
 * The server.* methods the gateway answers itself rather than forwarding: they describe the
 * server the wallet talks to, which is the gateway, not whichever Electrum server is behind it.
 */
export const GATEWAY_SERVER_METHODS: ReadonlySet<string> = new Set([
  "server.version",
  "server.features",
  "server.donation_address",
  "server.peers.subscribe",
  "server.add_peer",
]);

const own = (result: Json): CallResult => ({
  kind: "answer",
  answer: { result },
  upstream: GATEWAY_UPSTREAM,
});

/** One of GATEWAY_SERVER_METHODS, its parameters checked (`params`, in signature order). */
export async function serverAnswer(
  ctx: ElectrumContext,
  method: string,
  params: Json[],
): Promise<CallResult> {
  switch (method) {
    case "server.donation_address":
      return own(ctx.services.config.electrum.donationAddress[ctx.network] ?? "");
    // The gateway takes part in no peer discovery: it names no peers and takes none (ElectrumX
    // with PEER_DISCOVERY off answers add_peer `false` whatever the features).
    case "server.peers.subscribe":
      return own([]);
    case "server.add_peer":
      return own(false);
  }
  const pool = ctx.services.electrum.get(ctx.network);
  const identified = await identifiedServer(pool);
  if (!identified.ok) return identified.failure;
  const { version } = identified;
  // server.version's check agreed the protocol with this client (params[0]).
  const result =
    method === "server.version" ? [version.software, params[0]!] : features(ctx, version);
  return { kind: "answer", answer: { result }, upstream: version.upstream };
}

type Identified =
  | { ok: true; version: ElectrumServerVersion & { upstream: string } }
  | { ok: false; failure: CallResult };

/**
 * What the network's Electrum server said to the gateway's server.version. With no connection
 * identified yet (the gateway just started, or every server is reconnecting), a ping through the
 * pool waits for one, with its failover, as any call does.
 */
async function identifiedServer(pool: ElectrumPool | undefined): Promise<Identified> {
  if (!pool) {
    const error = gatewayError("UPSTREAM_UNAVAILABLE", "no Electrum server for this network");
    return { ok: false, failure: { kind: "failure", error } };
  }
  if (!pool.serverVersion()) {
    const ping = await pool.request("server.ping", []);
    if (!ping.ok) return { ok: false, failure: { kind: "failure", error: ping.error } };
  }
  const version = pool.serverVersion();
  if (version) return { ok: true, version };
  const error = gatewayError("UPSTREAM_UNAVAILABLE", "the Electrum server is unreachable", {
    detail: "no open connection has identified the server",
  });
  return { ok: false, failure: { kind: "failure", error } };
}

/**
 * ElectrumX's server_features, keys in its order, for the gateway: its TLS listener's name (the
 * token goes before it), the protocol range the route serves (1.4 up to what its connections
 * agreed), this network's genesis; server_version as server.version names it.
 */
function features(ctx: ElectrumContext, version: ElectrumServerVersion): Json {
  const hosts = listenerHosts(ctx);
  return {
    hosts: Object.fromEntries(hosts.map((h) => [h.host, { ssl_port: jsonNumber(h.port) }])),
    pruning: null,
    server_version: version.software,
    protocol_min: versionString(ELECTRUMX_PROTOCOL_MIN),
    protocol_max: version.protocol,
    genesis_hash: genesisBlock(ctx.network).hash,
    hash_function: "sha256",
    services: hosts.map((h) => `ssl://${h.host}:${h.port}`),
  };
}

/**
 * The TLS listener's name for this network, as ElectrumX's REPORT_SERVICES name a server:
 * `<suffix>` for the listener's default network, else `<network>.<suffix>`. None without a
 * listener: the WebSocket path is no Electrum service a peer list can describe.
 */
function listenerHosts(ctx: ElectrumContext): { host: string; port: number }[] {
  const tls = ctx.services.config.electrum.tls;
  const port = ctx.services.electrumTlsPort;
  if (!tls || port === null) return [];
  const host =
    tls.network === ctx.network ? tls.serverNameSuffix : `${ctx.network}.${tls.serverNameSuffix}`;
  return [{ host, port }];
}
