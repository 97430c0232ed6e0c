import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface DevnetListener {
  server: Server;
  port: number;
  close(): Promise<void>;
}

/**
 * An HTTP server for one of devnet's emulated upstreams, on 127.0.0.1 and port 0 unless told
 * otherwise. A handler that throws answers 500, as a crashed request would on the real thing.
 */
export async function listenDevnet(
  serve: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  opts: { host?: string | undefined; port?: number | undefined; keepAliveTimeoutMs: number },
): Promise<DevnetListener> {
  const server = createServer((req, res) => {
    serve(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  server.keepAliveTimeout = opts.keepAliveTimeoutMs;
  // A port already taken rejects (EADDRINUSE) rather than crash the process that asked for it.
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, opts.host ?? "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    server,
    port,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
