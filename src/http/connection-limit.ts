import type { Server, Socket } from "node:net";
import { gatewayError } from "../protocol/errors/codes.ts";
import { InFlightMap } from "../util/in-flight-map.ts";
import { plainFailure } from "./reply.ts";

/**
 * At most `max` open connections per client address (0: no limit), so one address cannot take
 * every socket the process has; one count across every listener watched (the HTTP server and the
 * Electrum TLS listener). The connection past the limit is refused at once, before anything on it
 * is read — the HTTP server answers a plain 429 RATE_LIMITED (httpRefusal), the TLS listener
 * closes it before its handshake — so it never reaches a route: nothing is authenticated,
 * executed or charged. The count lives in this process (a client spread over several gateway
 * processes gets `max` in each); entries go when their last connection closes, so the map is
 * bounded by the open sockets.
 */
export class AddressConnections {
  private readonly open = new InFlightMap<string, number>();

  constructor(
    private readonly max: number,
    private readonly refused: () => void,
  ) {}

  /** Counts `server`'s connections; `refuse` ends the one past the limit. */
  watch(server: Server, refuse: (socket: Socket) => void): void {
    if (this.max === 0) return;
    // Before the server's own listener, so a refused socket is ended before it parses anything.
    server.prependListener("connection", (socket: Socket) => {
      const address = socket.remoteAddress ?? "";
      const count = (this.open.get(address) ?? 0) + 1;
      if (count > this.max) {
        this.refused();
        refuse(socket);
        return;
      }
      this.open.set(address, count);
      socket.once("close", () => {
        const left = (this.open.get(address) ?? 1) - 1;
        if (left === 0) this.open.delete(address);
        else this.open.set(address, left);
      });
    });
  }
}

/** The HTTP server's refusal: 429 and the connection closed. */
export function httpRefusal(): (socket: Socket) => void {
  const failure = plainFailure(
    gatewayError("RATE_LIMITED", "too many open connections from this address"),
  );
  const body = JSON.stringify(failure.body);
  const bytes = Buffer.from(
    `HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nretry-after: 1\r\nconnection: close\r\n\r\n${body}`,
  );
  return (socket) => socket.end(bytes, () => socket.destroy());
}
