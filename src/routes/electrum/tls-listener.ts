import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import type { AddressInfo, Socket } from "node:net";
import { createServer, type TLSSocket } from "node:tls";
import { authenticateCall } from "../../access/authenticate.ts";
import { checkScope } from "../../access/scope-errors.ts";
import { tokenOfDnsLabel } from "../../access/token-dns.ts";
import { tokenHint } from "../../access/tokens.ts";
import { admitCall } from "../../billing/metering/admit.ts";
import type { Config, NetworkName } from "../../config/schema.ts";
import type { AddressConnections } from "../../http/connection-limit.ts";
import type { InFlight } from "../../http/in-flight.ts";
import { nextPoll, stopListening } from "../../http/listener.ts";
import { type GatewayError, gatewayError } from "../../protocol/errors/codes.ts";
import { lineChannel } from "./lines.ts";
import type { ElectrumServices } from "./services.ts";
import { failure, serveElectrumSession } from "./session.ts";

export interface ElectrumTlsListener {
  port: number;
  /** Drain: no new connections, none made reset (see stopListening). */
  stopListening(): Promise<void>;
  /** Drain: each session is ended once the messages it was sent are answered. */
  endSessions(): void;
  /** After the drain: connections still open are dropped. */
  destroy(): Promise<void>;
}

type TlsConfig = NonNullable<Config["electrum"]["tls"]>;

/**
 * The Electrum route for stock wallets (Electrum, Sparrow, BlueWallet…), which speak
 * newline-delimited JSON-RPC over TLS and cannot put a token in a path: the token is the first
 * label of the TLS server name (SNI), `<token>.<network>.<suffix>` or `<token>.<suffix>` for the
 * configured network. Once the connection is authenticated, scoped and admitted as an upgrade is,
 * it is the WebSocket session exactly (src/routes/electrum/session.ts: same methods, metering and
 * notifications) over lines instead of frames. A connection without a valid token completes its
 * handshake (one certificate serves every name) and gets one JSON-RPC error line, then is closed,
 * so a wallet shows the reason rather than a TLS alert; it is counted as a failed authentication
 * and never charged. The token is never logged, only its hint.
 */
export async function startElectrumTls(
  app: ElectrumServices,
  registry: { requests: InFlight; connections: AddressConnections },
): Promise<ElectrumTlsListener | null> {
  const config = app.config.electrum.tls;
  if (!config) return null;
  const server = createServer({
    cert: readConfigFile(config.certFile, "electrum.tls.certFile"),
    key: readConfigFile(config.keyFile, "electrum.tls.keyFile"),
  });
  registry.connections.watch(server, (socket) => socket.destroy());
  // Every connection, handshake or not: the drain's last step drops those left, so that a client
  // stalled in its handshake cannot hold the listener open.
  const raw = new Set<Socket>();
  server.on("connection", (socket: Socket) => {
    raw.add(socket);
    socket.once("close", () => raw.delete(socket));
  });
  // A handshake that fails is the client's business; it must not reach the process's handlers.
  server.on("tlsClientError", () => {});
  /** Each session served, and how a drain ends it. */
  const sessions = new Map<TLSSocket, () => void>();
  let ending = false;
  server.on("secureConnection", (socket: TLSSocket) => {
    socket.on("error", () => {});
    // Nothing is read until the token is known (authentication may wait on the database).
    socket.pause();
    // Authentication counts in flight (a drain waits for it): the wallet may have sent its
    // first messages already.
    registry.requests
      .run(socket, async () => {
        const session = await accept(app, socket, config, registry.requests);
        if (!session || socket.destroyed) return;
        if (!ending) {
          sessions.set(socket, session.shutdown);
          socket.once("close", () => sessions.delete(socket));
          return;
        }
        // Served during the drain: what it had sent is read (the session reads from now) and
        // answered, then the session ends.
        await nextPoll();
        session.shutdown();
      })
      .catch((err: unknown) => {
        app.log.error({ err }, "electrum tls session");
        socket.destroy();
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const closed = new Promise<void>((resolve) => server.once("close", () => resolve()));
  const port = (server.address() as AddressInfo).port;
  app.electrumTlsPort = port;
  return {
    port,
    stopListening: async () => {
      await stopListening(server);
    },
    endSessions: () => {
      ending = true;
      for (const end of sessions.values()) end();
    },
    destroy: async () => {
      if (server.listening) server.close();
      for (const socket of raw) socket.destroy();
      await closed;
    },
  };
}

async function accept(
  app: ElectrumServices,
  socket: TLSSocket,
  config: TlsConfig,
  requests: InFlight,
): Promise<{ shutdown(): void } | null> {
  const refuse = (error: GatewayError): void => {
    socket.end(`${failure(error)}\n`);
    // Read (and drop) what the client sent, so its close is seen and the socket freed; a socket
    // left paused would never notice the client had gone.
    socket.resume();
  };
  const named = tokenOfServerName(socket.servername, config, app.config.networks);
  const requestId = randomUUID();
  if (!named) {
    app.metrics.authFailures.inc({ route: "electrum" });
    app.log.info({ requestId, route: "electrum-tls" }, "no token in the TLS server name");
    refuse(gatewayError("UNAUTHENTICATED", "no access token in the TLS server name"));
    return null;
  }
  const { token, network } = named;
  const backendSegment = app.config.backends.electrum;
  const from = {
    source: socket.remoteAddress ?? "unknown",
    backendSegment,
    network,
    route: "electrum",
  };
  const authenticated = await authenticateCall(app, token, from);
  const hint = tokenHint(token);
  if (!authenticated.ok) {
    app.log.info({ requestId, route: "electrum-tls", network, tokenHint: hint }, "refused");
    refuse(authenticated.error);
    return null;
  }
  const owner = authenticated.owner;
  const outside = checkScope(app, owner, { ...from, backend: "electrum", origin: null });
  if (outside) {
    refuse(outside);
    return null;
  }
  const admission = await admitCall(app, owner, from);
  if (!admission.ok) {
    refuse(admission.error);
    return null;
  }
  // A session is no call: each of its messages is admitted (and takes a slot) on its own.
  admission.release?.();
  app.log.info({ requestId, route: "electrum-tls", network, tokenHint: hint }, "session");
  return serveElectrumSession(lineChannel(socket, app.config.server.bodyBytesMax), {
    ctx: {
      services: app,
      requestId,
      owner,
      backend: "electrum",
      backendSegment,
      network,
      startedAt: Date.now(),
      // The drain may cut a message's call before it is charged, never after.
      charge: (settle) => requests.charge(socket, settle),
    },
    stillValid: () => app.tokens.authenticate(token),
    admit: (o) => admitCall(app, o, from),
    // Each message's work counts in flight on the connection: drain waits for it.
    inFlight: (work) => requests.run(socket, work),
  });
}

/**
 * The token and network a server name names: `<token>.<network>.<suffix>`, or
 * `<token>.<suffix>` when `network` is configured; the token as issued or in its DNS form
 * (src/access/token-dns.ts). Null for anything else, a name without SNI included.
 */
export function tokenOfServerName(
  servername: string | false | null | undefined,
  config: Pick<TlsConfig, "serverNameSuffix" | "network">,
  networks: readonly NetworkName[],
): { token: string; network: NetworkName } | null {
  if (typeof servername !== "string") return null;
  const tail = `.${config.serverNameSuffix}`;
  // Host names are case-insensitive; the token's label keeps the case it was sent in.
  if (!servername.toLowerCase().endsWith(tail)) return null;
  const labels = servername.slice(0, -tail.length).split(".");
  const label = labels[0] ?? "";
  const network = labels.length === 2 ? labels[1]!.toLowerCase() : config.network;
  if (label === "" || labels.length > 2 || network === undefined) return null;
  if (!(networks as readonly string[]).includes(network)) return null;
  return { token: tokenOfDnsLabel(label), network: network as NetworkName };
}

function readConfigFile(path: string, setting: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new Error(`${setting}: cannot read ${path}: ${(err as Error).message}`);
  }
}
