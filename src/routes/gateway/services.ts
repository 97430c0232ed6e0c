import type { IncomingMessage } from "node:http";
import type { WebSocket } from "ws";
import type { TokenCache } from "../../access/token-cache.ts";
import type { CallContext, MeterServices } from "../../billing/metering/context.ts";
import type { SocketSession } from "../../billing/metering/socket-session.ts";
import type { ElectrumTxServices } from "../../cache/from-electrum.ts";
import type { GatewayAnswers } from "../../cache/gateway-answers.ts";
import type { ParsedTxs } from "../../cache/parsed-txs.ts";
import type { NetworkName } from "../../config/schema.ts";
import type { ChainEvents } from "../../events/chain-events.ts";
import type { HttpReply } from "../../http/reply.ts";
import type { BitcoinCorePool } from "../../upstreams/bitcoin-core/pool.ts";
import type { IndexerPool } from "../../upstreams/indexer/pool.ts";
import type { TargetPolicy } from "../../webhooks/targets.ts";

/** What the unified API uses of a running gateway: every upstream, and the account's own data. */
export interface GatewayServices extends MeterServices, ElectrumTxServices {
  nodes: ReadonlyMap<NetworkName, BitcoinCorePool>;
  indexers: ReadonlyMap<NetworkName, IndexerPool>;
  /** Transactions of the node's answers, decoded once (src/cache/parsed-txs.ts). */
  parsedTxs: ParsedTxs;
  /** Whole answers about final blocks (src/cache/gateway-answers.ts). */
  gatewayAnswers: GatewayAnswers;
  /** Blocks connected and disconnected: what subscriptions deliver. */
  events: ChainEvents;
  /** Token hash → owner: a subscription checks its token again before each event. */
  tokens: TokenCache;
  /** Where webhook endpoints may point: checked at registration. */
  webhookTargets: TargetPolicy;
  /** This gateway's unified API, loaded on first use (load.ts) and kept by the composition root. */
  unifiedApi(): Promise<UnifiedApi>;
}

export type GatewayCallContext = CallContext<GatewayServices>;

/** What the unified API needs besides the call's context: the request to hand to Yoga. */
export interface GraphQLRequest {
  req: IncomingMessage;
  body: string;
  /** The path the caller used, token included, so GraphiQL posts back to it. */
  publicPath: string;
}

/** The unified API as its callers see it: the gateway route, its WebSocket path, the dashboard. */
export interface UnifiedApi {
  execute(ctx: GatewayCallContext, call: GraphQLRequest): Promise<HttpReply>;
  serveSocket(socket: WebSocket, session: SocketSession<GatewayServices>): () => void;
}
