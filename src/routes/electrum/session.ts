import type { SocketSession } from "../../billing/metering/socket-session.ts";
import { jsonRpcFailure, replyText } from "../../http/reply.ts";
import { type GatewayError, gatewayError } from "../../protocol/errors/codes.ts";
import { stringifyJson } from "../../protocol/json/json.ts";
import type { MessageChannel } from "./channel.ts";
import { ElectrumPush } from "./push.ts";
import { handleElectrumRpc } from "./route.ts";
import type { ElectrumServices } from "./services.ts";

/**
 * An Electrum session on a message channel (a WebSocket, or a TLS connection of a stock wallet):
 * each message is answered by the same route as an HTTP POST — checked, priced, metered and
 * audited call by call (src/routes/json-rpc/mirror.ts), a message being to the pipeline what a request
 * body is. Messages are answered in the order they came, one at a time (the connection's own
 * back-pressure); ids pair answers with calls as in Electrum. The token was checked when the
 * connection opened, and again before each message, so a revoked token stops being served at its
 * next message and the session is closed. Notifications (electrum-push.ts) take their turn in
 * the same queue, so one is never sent before the answer to the subscription that asked for it.
 */
export function serveElectrumSession(
  channel: MessageChannel,
  session: SocketSession<ElectrumServices>,
): { shutdown(): void } {
  let queue = Promise.resolve();
  const serial = (work: () => Promise<void>) => {
    queue = queue.then(() => session.inFlight(work)).catch(() => channel.terminate());
  };
  const push = new ElectrumPush(channel, session, serial);
  channel.onClose(() => push.close());
  let sequence = 0;
  channel.onMessage((text) => {
    sequence += 1;
    const requestId = `${session.ctx.requestId}.${sequence}`;
    serial(() => answer(channel, session, text, requestId, push));
  });
  // The gateway drains: the session ends once the message in hand is answered.
  return { shutdown: () => serial(async () => channel.close("shutdown")) };
}

async function answer(
  channel: MessageChannel,
  session: SocketSession<ElectrumServices>,
  text: string,
  requestId: string,
  push: ElectrumPush,
): Promise<void> {
  if (!channel.isOpen()) return;
  const owner = await session.stillValid();
  if (!owner) {
    channel.send(failure(gatewayError("UNAUTHENTICATED", "the token is no longer valid")));
    channel.close("revoked");
    return;
  }
  const admission = await session.admit(owner);
  if (!admission.ok) {
    channel.send(failure(admission.error));
    return;
  }
  try {
    const reply = await handleElectrumRpc(
      { ...session.ctx, owner, requestId, startedAt: Date.now(), electrum: push },
      text,
    );
    channel.send(replyText(reply));
  } finally {
    admission.release?.();
  }
}

/** A JSON-RPC error message with a null id: the answer to no call in particular. */
export function failure(error: GatewayError): string {
  return stringifyJson(jsonRpcFailure(error).body);
}
