import { type GatewayError, gatewayError } from "./codes.ts";

/** What is known of an answer over the limit: a size it is not below, and whether it was asked. */
export interface AnswerSize {
  bytes: number;
  /** Estimated before anything was asked (the request was refused up front). */
  estimated?: boolean;
}

/**
 * RESPONSE_TOO_LARGE as a client reads it: the limit per request and, when known, a size the
 * answer is not below, so the client can tell how much less to ask for.
 */
export function responseTooLarge(
  limitBytes: number,
  size: AnswerSize | null,
  detail?: string,
): GatewayError {
  const is = size?.estimated ? "would be" : "is";
  const how = size ? `${is} at least ${size.bytes} bytes, over` : `${is} over`;
  return gatewayError(
    "RESPONSE_TOO_LARGE",
    `the answer ${how} the limit of ${limitBytes} bytes per request: ask for less in one request (fewer calls, a lower verbosity)`,
    {
      data: { limitBytes, ...(size ? { answerBytesMin: size.bytes } : {}) },
      ...(detail === undefined ? {} : { detail }),
    },
  );
}
