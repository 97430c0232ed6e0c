import { readFileSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { createServer, type TLSSocket } from "node:tls";
import { stopListening } from "./listener.ts";

export interface HttpsFrontConfig {
  host: string;
  port: number;
  certFile: string;
  keyFile: string;
}

export interface HttpsFront {
  port: number;
  url: string;
  /** Drain: no new connections, none made reset (see stopListening). */
  stopListening(): Promise<void>;
  /** After the drain: connections still in their handshake are dropped. */
  destroy(): Promise<void>;
}

/**
 * HTTPS on the same routes as the plain listener (server.tls): each connection's TLS is ended
 * here and the decrypted socket handed to the HTTP server as one of its own connections, so that
 * every hook, limit, count in flight and drain step applies to it unchanged. For clients that
 * only speak HTTPS to a host name (mempool.js and most Esplora SDKs build `https://<host>/api`).
 */
export async function startHttpsFront(http: Server, config: HttpsFrontConfig): Promise<HttpsFront> {
  const server = createServer({
    cert: readSetting(config.certFile, "server.tls.certFile"),
    key: readSetting(config.keyFile, "server.tls.keyFile"),
    ALPNProtocols: ["http/1.1"],
  });
  // Handshakes in progress are the front's: the HTTP server only sees a connection once it is
  // secure, so the drain's last step drops those stalled before.
  const raw = new Set<Socket>();
  server.on("connection", (socket: Socket) => {
    raw.add(socket);
    socket.once("close", () => raw.delete(socket));
  });
  // A failed handshake is the client's business; it must not reach the process's handlers.
  server.on("tlsClientError", () => {});
  server.on("secureConnection", (socket: TLSSocket) => {
    raw.delete(socket);
    http.emit("connection", socket);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const closed = new Promise<void>((resolve) => server.once("close", () => resolve()));
  const port = (server.address() as AddressInfo).port;
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  return {
    port,
    url: `https://${host}:${port}`,
    stopListening: async () => {
      await stopListening(server);
    },
    destroy: async () => {
      if (server.listening) server.close();
      for (const socket of raw) socket.destroy();
      await closed;
    },
  };
}

function readSetting(path: string, setting: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new Error(`${setting}: cannot read ${path}: ${(err as Error).message}`);
  }
}
