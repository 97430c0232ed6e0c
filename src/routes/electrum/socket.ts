import type { WebSocket } from "ws";
import type { SocketSession } from "../../billing/metering/socket-session.ts";
import type { MessageChannel } from "./channel.ts";
import type { ElectrumServices } from "./services.ts";
import { serveElectrumSession } from "./session.ts";

/** WebSocket close codes: the token is no longer valid (1008), the server is going away (1001). */
const CLOSE_CODES: Record<"revoked" | "shutdown", [number, string]> = {
  revoked: [1008, "token no longer valid"],
  shutdown: [1001, "server shutting down"],
};

/**
 * The Electrum route over WebSocket: one JSON-RPC message (a call or a batch) per text frame, as
 * ElectrumX and Fulcrum serve Electrum to browsers (the session: electrum-session.ts).
 */
export function serveElectrumSocket(
  socket: WebSocket,
  session: SocketSession<ElectrumServices>,
): () => void {
  // The server's drain ends the session (1001) once the messages it was sent are answered.
  return serveElectrumSession(webSocketChannel(socket), session).shutdown;
}

function webSocketChannel(socket: WebSocket): MessageChannel {
  return {
    onMessage: (listener) =>
      socket.on("message", (data, isBinary) =>
        listener(isBinary ? Buffer.from(data as Buffer).toString("utf8") : String(data)),
      ),
    onClose: (listener) => socket.once("close", listener),
    isOpen: () => socket.readyState === socket.OPEN,
    send: (text) => {
      if (socket.readyState === socket.OPEN) socket.send(text);
    },
    close: (reason) => {
      const [code, why] = CLOSE_CODES[reason];
      socket.close(code, why);
    },
    terminate: () => socket.terminate(),
  };
}
