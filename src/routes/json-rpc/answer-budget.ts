import type { GatewayError } from "../../protocol/errors/codes.ts";
import { responseTooLarge } from "../../protocol/errors/too-large.ts";

/**
 * What one request's answers may take together (server.responseBytesMax), drawn on as each is
 * got — from an upstream or the cache — before the reply is written: once an answer takes the
 * total past the limit, the request is over it for good, and what comes after is not kept.
 */
export class AnswerBudget {
  private used = 0;

  constructor(readonly limitBytes: number) {}

  /** Counts an answer's bytes in; false once the request is over its limit. */
  take(bytes: number): boolean {
    this.used += bytes;
    return this.used <= this.limitBytes;
  }

  get over(): boolean {
    return this.used > this.limitBytes;
  }

  /** What answers still to come may take (0 once over). */
  get left(): number {
    return Math.max(this.limitBytes - this.used, 0);
  }

  /**
   * The request's RESPONSE_TOO_LARGE, with the configured limit: `upstream`'s, when an upstream
   * refused to send more (its error says how much it knew), else the budget's own count.
   */
  error(upstream?: GatewayError): GatewayError {
    const known = upstream?.data?.answerBytesMin;
    const bytes = typeof known === "number" ? this.used + known : this.over ? this.used : null;
    return responseTooLarge(this.limitBytes, bytes === null ? null : { bytes }, upstream?.detail);
  }
}
