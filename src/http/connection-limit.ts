import type { Server } from "node:http";
import type { Socket } from "node:net";
import { gatewayError } from "../errors/codes.ts";
import { plainFailure } from "./reply.ts";

/**
 * At most `max` open connections per client address (0: no limit), so one address cannot take
 * every socket the process has. The connection past the limit is answered at once, before any
 * request on it is read, with a plain 429 RATE_LIMITED, and closed; it never reaches a route,
 * so nothing is authenticated, executed or charged. The count lives in this process (a client
 * spread over several gateway processes gets `max` in each); entries go when their last
 * connection closes, so the map is bounded by the open sockets.
 */
export function limitConnectionsPerAddress(server: Server, max: number, refused: () => void): void {
  if (max === 0) return;
  const open = new Map<string, number>();
  const refusal = refusalBytes();
  // Before node's own listener, so a refused socket is answered before it parses anything.
  server.prependListener("connection", (socket: Socket) => {
    const address = socket.remoteAddress ?? "";
    const count = (open.get(address) ?? 0) + 1;
    if (count > max) {
      refused();
      socket.end(refusal, () => socket.destroy());
      return;
    }
    open.set(address, count);
    socket.once("close", () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left === 0) open.delete(address);
      else open.set(address, left);
    });
  });
}

function refusalBytes(): Buffer {
  const failure = plainFailure(
    gatewayError("RATE_LIMITED", "too many open connections from this address"),
  );
  const body = JSON.stringify(failure.body);
  return Buffer.from(
    `HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nretry-after: 1\r\nconnection: close\r\n\r\n${body}`,
  );
}
