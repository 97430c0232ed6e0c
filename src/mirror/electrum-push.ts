import type { WebSocket } from "ws";
import { rpcErrorObject } from "../errors/render.ts";
import type { ChainEvent } from "../events/types.ts";
import { isJsonObject, type Json, jsonNumber, parseJson, stringifyJson } from "../jsonrpc/json.ts";
import { meter } from "../metering/pipeline.ts";
import type { SocketSession } from "../metering/socket-session.ts";
import { eventPrice } from "../pricing/prices.ts";

const METHOD = "blockchain.headers.subscribe";

/**
 * Electrum's header notifications on a WebSocket session, once the client has subscribed
 * (`blockchain.headers.subscribe` answered): when the chain's tip moves, the new tip as ElectrumX
 * sends it — `{"jsonrpc":"2.0","method":"blockchain.headers.subscribe","params":[{"hex","height"}]}`
 * — the header read from the network's Electrum servers. The events of one look at the chain (a
 * reorganisation is several) make one notification: the tip's. Each notification is charged
 * `pricing.events["blockchain.headers.subscribe"]` as it is sent, through the pipeline (its own
 * audit record); when the balance no longer covers one, the session is told with a JSON-RPC error
 * and no more notifications are sent.
 */
export class HeaderPush {
  private stop: (() => void) | null = null;
  private latest: ChainEvent | null = null;
  private scheduled = false;
  private sent = 0;

  constructor(
    private readonly socket: WebSocket,
    private readonly session: SocketSession,
  ) {}

  /** Starts pushing (once; later subscriptions of the same session change nothing). */
  subscribe(): void {
    if (this.stop) return;
    const { ctx } = this.session;
    this.stop = ctx.app.events.subscribe(ctx.network, (e) => {
      if (e.kind !== "connected") return;
      this.latest = e;
      if (this.scheduled) return;
      this.scheduled = true;
      // The events of one look arrive together: the tip is the last of them.
      setImmediate(() => {
        this.scheduled = false;
        void this.session.inFlight(() => this.push());
      });
    });
    this.socket.once("close", () => this.close());
  }

  close(): void {
    this.stop?.();
    this.stop = null;
  }

  private async push(): Promise<void> {
    const tip = this.latest;
    if (!tip || !this.stop || this.socket.readyState !== this.socket.OPEN) return;
    const { ctx } = this.session;
    const owner = await this.session.stillValid();
    if (!owner) {
      this.close();
      this.socket.close(1008, "token no longer valid");
      return;
    }
    const pool = ctx.app.electrum.get(ctx.network);
    if (!pool) return;
    const header = await pool.request("blockchain.block.header", [jsonNumber(tip.height)]);
    if (!header.ok || !("result" in header.answer) || typeof header.answer.result !== "string") {
      ctx.app.log.warn({ network: ctx.network, height: tip.height }, "header for a notification");
      return;
    }
    const hex = header.answer.result;
    this.sent += 1;
    const price = eventPrice(ctx.app.config, METHOD, ctx.network);
    const cost = await meter(
      { ...ctx, owner, requestId: `${ctx.requestId}.push${this.sent}`, startedAt: Date.now() },
      {
        calls: [{ kind: "priced", method: METHOD, price }],
        execute: async () => ({
          value: null,
          outcomes: [
            { kind: "answered", outcome: "ok", httpStatus: 200, upstream: header.upstream },
          ],
        }),
      },
    );
    if (!cost.ok) {
      this.close();
      const error = rpcErrorObject(cost.error) as { code: number; message: string };
      this.send({
        jsonrpc: "2.0",
        id: null,
        error: { ...error, message: `${error.message}: header notifications stop` },
      });
      return;
    }
    this.send({ jsonrpc: "2.0", method: METHOD, params: [{ hex, height: tip.height }] });
  }

  private send(message: Record<string, unknown>): void {
    if (this.socket.readyState === this.socket.OPEN) this.socket.send(stringifyJson(message));
  }
}

/** Whether an answered message subscribed to headers: a headers.subscribe call answered a result. */
export function subscribedToHeaders(request: string, reply: unknown): boolean {
  // Most messages name no subscription: they are not parsed a second time to find that out.
  if (!request.includes(METHOD)) return false;
  let calls: Json;
  try {
    calls = parseJson(request);
  } catch {
    return false;
  }
  const asked = (Array.isArray(calls) ? calls : [calls]).flatMap((c) =>
    isJsonObject(c) && c.method === METHOD ? [stringifyJson(c.id ?? null)] : [],
  );
  if (asked.length === 0) return false;
  const answers = (Array.isArray(reply) ? reply : [reply]) as Json[];
  return answers.some(
    (a) => isJsonObject(a) && "result" in a && asked.includes(stringifyJson(a.id ?? null)),
  );
}
