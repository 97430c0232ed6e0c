import type { AnswerAbout, GatewayAnswer } from "../../../cache/gateway-answers.ts";
import type { CostReport } from "../cost/report-types.ts";

/**
 * An answer the cost plugin found final, waiting for Yoga's response: the route keeps it once the
 * bytes Yoga wrote are the ones serving it again would write (answers/serve.ts).
 */
export interface PendingAnswer {
  answer: Omit<GatewayAnswer, "headers">;
  /** The blocks it is about, or where its transactions were mined. */
  about: AnswerAbout;
  /** This request's own `extensions.cost`: what the route renders to compare with Yoga's. */
  report: CostReport;
  /** The X-Credits-* headers' names: this caller's, not the answer's. */
  creditHeaders: string[];
}
