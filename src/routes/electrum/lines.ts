import type { Socket } from "node:net";
import { gatewayError } from "../../protocol/errors/codes.ts";
import { LineSplitter } from "../../protocol/json/lines.ts";
import type { MessageChannel } from "./channel.ts";
import { failure } from "./session.ts";

/**
 * ElectrumX's SESSION_TIMEOUT: a client silent this long is disconnected (wallets ping every
 * minute or so while they wait).
 */
const IDLE_TIMEOUT_MS = 600_000;

/**
 * Electrum as stock wallets speak it: one JSON-RPC message per line over TCP (here TLS), at most
 * `lineBytesMax` bytes each; a longer one is answered with an error and the connection closed, as
 * ElectrumX drops a client past MAX_RECV. The socket is read from the moment a listener is
 * attached, so what the client sent while the connection was being authenticated waits in it.
 */
export function lineChannel(socket: Socket, lineBytesMax: number): MessageChannel {
  const splitter = new LineSplitter(lineBytesMax);
  const isOpen = () => !socket.destroyed && socket.writable;
  socket.setNoDelay(true);
  socket.setTimeout(IDLE_TIMEOUT_MS, () => socket.destroy());
  return {
    onMessage: (listener) => {
      let refused = false;
      socket.on("data", (chunk: Buffer) => {
        // After a refusal the rest is read and dropped, so the client's close is seen.
        if (refused) return;
        const lines = splitter.push(chunk);
        if (lines === "too-long") {
          refused = true;
          const tooLarge = gatewayError("PAYLOAD_TOO_LARGE", `message over ${lineBytesMax} bytes`);
          socket.end(`${failure(tooLarge)}\n`);
          return;
        }
        for (const line of lines) if (line.trim() !== "") listener(line);
      });
      socket.resume();
    },
    onClose: (listener) => socket.once("close", listener),
    isOpen,
    send: (text) => {
      if (isOpen()) socket.write(`${text}\n`);
    },
    close: () => socket.end(),
    terminate: () => socket.destroy(),
  };
}
