import type { WebSocket } from "ws";
import { type GatewayError, gatewayError } from "../errors/codes.ts";
import { jsonRpcFailure } from "../http/reply.ts";
import { stringifyJson } from "../jsonrpc/json.ts";
import type { SocketSession } from "../metering/socket-session.ts";
import { HeaderPush, subscribedToHeaders } from "./electrum-push.ts";
import { handleElectrumRpc } from "./electrum-route.ts";

/** WebSocket close code 1008: the token the session was opened with is no longer valid. */
const POLICY_VIOLATION = 1008;

/**
 * The Electrum route over WebSocket: one JSON-RPC message (a call or a batch) per text frame, as
 * ElectrumX and Fulcrum serve Electrum to browsers, answered by the same route as an HTTP POST —
 * checked, priced, metered and audited call by call (src/mirror/rpc-route.ts), a message being
 * to the pipeline what a request body is. Messages are answered in the order they came, one at a
 * time (the connection's own back-pressure); ids pair answers with calls as in Electrum. The token
 * was checked when the connection opened, and again before each message, so a revoked token
 * stops being served at its next message and the connection is closed (1008).
 */
export function serveElectrumSocket(socket: WebSocket, session: SocketSession): void {
  let queue = Promise.resolve();
  const headers = new HeaderPush(socket, session);
  let sequence = 0;
  socket.on("message", (data, isBinary) => {
    const text = isBinary ? Buffer.from(data as Buffer).toString("utf8") : String(data);
    sequence += 1;
    const requestId = `${session.ctx.requestId}.${sequence}`;
    queue = queue
      .then(() => session.inFlight(() => answer(socket, session, text, requestId, headers)))
      .catch(() => socket.terminate());
  });
}

async function answer(
  socket: WebSocket,
  session: SocketSession,
  text: string,
  requestId: string,
  headers: HeaderPush,
): Promise<void> {
  if (socket.readyState !== socket.OPEN) return;
  const owner = await session.stillValid();
  if (!owner) {
    send(socket, failure(gatewayError("UNAUTHENTICATED", "the token is no longer valid")));
    socket.close(POLICY_VIOLATION, "token no longer valid");
    return;
  }
  const admission = await session.admit(owner);
  if (!admission.ok) {
    send(socket, failure(admission.error));
    return;
  }
  try {
    const reply = await handleElectrumRpc(
      { ...session.ctx, owner, requestId, startedAt: Date.now() },
      text,
    );
    send(socket, reply.raw ? Buffer.from(reply.raw).toString("utf8") : stringifyJson(reply.body));
    // Subscribed: from now on the tip is pushed as it moves (src/mirror/electrum-push.ts).
    if (!reply.raw && subscribedToHeaders(text, reply.body)) headers.subscribe();
  } finally {
    admission.release?.();
  }
}

function failure(error: GatewayError): string {
  return stringifyJson(jsonRpcFailure(error).body);
}

function send(socket: WebSocket, text: string): void {
  if (socket.readyState === socket.OPEN) socket.send(text);
}
