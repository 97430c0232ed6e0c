import type { IncomingMessage } from "node:http";
import { meter } from "../../../billing/metering/pipeline.ts";
import { fillConfirmations } from "../../../cache/answer-template.ts";
import type { GatewayAnswer } from "../../../cache/gateway-answers.ts";
import type { NetworkName } from "../../../config/schema.ts";
import type { HttpReply } from "../../../http/reply.ts";
import { METHOD } from "../cost/plugin.ts";
import { costReport, refusalReply, resultText } from "../cost/report.ts";
import { replyKey } from "../request-key.ts";
import type { GatewayCallContext, GatewayServices } from "../services.ts";
import type { PendingAnswer } from "./pending.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The cache key of a request whose answer may be served from, and kept in, the cache of whole
 * answers: what Yoga's answer depends on (../request-key.ts) and the body; the caller's balance
 * goes into each answer afresh. null: always executed.
 */
export function answerKey(
  app: GatewayServices,
  network: NetworkName,
  req: IncomingMessage,
  body: string,
): string | null {
  if (!app.gatewayAnswers.enabled) return null;
  const key = replyKey(network, req);
  return key === null ? null : `${key}\u0000${body}`;
}

/**
 * Serves a kept answer without executing anything: the metering pipeline reserves the estimate
 * the answer was first reserved with and charges what it was charged — the interface prices a hit
 * as the miss — with its own audit record (cache hits flagged); then the kept `data` with this
 * call's `extensions.cost`, byte for byte what Yoga would write (checked when it was kept).
 */
export async function serveAnswer(
  ctx: GatewayCallContext,
  answer: GatewayAnswer,
): Promise<HttpReply> {
  const cost = await meter(ctx, {
    calls: [
      {
        kind: "priced",
        method: METHOD,
        price: answer.estimated,
        complexity: answer.estimatedComplexity,
      },
    ],
    execute: async () => ({
      value: null,
      outcomes: [
        {
          kind: "answered",
          outcome: "ok",
          httpStatus: 200,
          chargedCc: answer.actual,
          complexity: answer.complexity,
          cacheHits: answer.answered,
          // Checked when it was kept; its confirmations now count from the node's tip, not the
          // verified one, so a proven answer is partly so.
          verified: answer.verified === "chain" ? "partial" : (answer.verified ?? "unchecked"),
        },
      ],
    }),
  });
  const headers = { ...answer.headers, ...cost.headers };
  if (!cost.ok) return refusalReply(cost, headers);
  const report = costReport({
    estimated: answer.estimated,
    actual: answer.actual,
    charged: cost.charged,
    balance: cost.available,
    complexity: answer.complexity,
    calls: answer.lines,
  });
  return {
    status: 200,
    body: null,
    raw: encoder.encode(resultText(answer.dataText, report)),
    headers,
  };
}

/**
 * Keeps the answer the cost plugin found final, once Yoga has written it — only when those bytes
 * are exactly what serveAnswer would write for the same charge and balance, so a later Yoga
 * (another key order, an extension) makes the cache keep nothing rather than answer differently.
 * In the background: the chain guard may ask the node whether the blocks are still on the best
 * chain, and the caller has its answer already.
 */
export function keepAnswer(
  app: GatewayServices,
  network: NetworkName,
  key: string,
  pending: PendingAnswer,
  reply: { status: number; raw: Uint8Array; headers: Record<string, string> },
): void {
  if (reply.status !== 200) return;
  // An answer with confirmations is a template: compared with them written in as they were said.
  const { confirmations } = pending.answer;
  const dataText = confirmations
    ? fillConfirmations(pending.answer.dataText, confirmations)
    : pending.answer.dataText;
  if (dataText === null || decoder.decode(reply.raw) !== resultText(dataText, pending.report)) {
    return;
  }
  const headers = Object.fromEntries(
    Object.entries(reply.headers).filter(([name]) => !pending.creditHeaders.includes(name)),
  );
  app.gatewayAnswers
    .remember(network, key, { ...pending.answer, headers }, pending.about)
    .catch((err: unknown) => app.log.warn({ err, network }, "could not keep a final answer"));
}
