import type { Dispatcher } from "undici";
import { gatewayError } from "../protocol/errors/codes.ts";
import { responseTooLarge } from "../protocol/errors/too-large.ts";
import type { UpstreamFailure } from "./failover.ts";

type Answer = Pick<Dispatcher.ResponseData, "headers" | "body">;

/** An upstream's answer over the bytes allowed for it: read no further than that. */
export class AnswerTooLarge extends Error {
  constructor(
    readonly bytesMax: number,
    /** What the upstream said it sends (Content-Length), when it said. */
    readonly declaredBytes: number | null,
  ) {
    super(`answer over ${bytesMax} bytes`);
    this.name = "AnswerTooLarge";
  }
}

/**
 * Reads an upstream's answer, refusing more than `bytesMax`. An answer that says it is larger
 * (Content-Length: Bitcoin Core and Hasura both send one) is refused before a byte of it is read;
 * one that grows past the bound as it comes is refused there. Either way the body is destroyed —
 * the connection goes and the upstream stops sending — and what was read is garbage at once, so
 * oversized answers in flight together hold at most `bytesMax` each, never their whole size.
 */
export async function readLimited(res: Answer, bytesMax: number): Promise<string> {
  return (await readLimitedBytes(res, bytesMax)).toString("utf8");
}

/** readLimited's bytes, for answers that are not text (a raw block or transaction). */
export async function readLimitedBytes(res: Answer, bytesMax: number): Promise<Buffer> {
  const declared = Number(res.headers["content-length"]);
  if (Number.isFinite(declared) && declared > bytesMax) {
    // Destroyed unread, the body reports the abort as an error: nobody else listens for it.
    res.body.on("error", () => {});
    res.body.destroy();
    throw new AnswerTooLarge(bytesMax, declared);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  // Leaving the loop by the throw destroys the body (the iterator's return).
  for await (const chunk of res.body) {
    size += chunk.length;
    if (size > bytesMax) throw new AnswerTooLarge(bytesMax, null);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

/**
 * A request that got no usable HTTP answer. An answer over its size bound is final: the upstream
 * is well (its breaker is left alone) and the same request would be as large anywhere else. A
 * timeout (ours, undici's, or the caller's deadline) is final too — retrying would stretch the
 * client's wait — while a refused or dropped connection lets the pool try the next upstream.
 * `what` names the upstream for the public message.
 */
export function transportFailure(err: unknown, name: string, what: string): UpstreamFailure {
  if (err instanceof AnswerTooLarge) {
    const size = err.declaredBytes === null ? null : { bytes: err.declaredBytes };
    return {
      ok: false,
      retryable: false,
      error: responseTooLarge(
        err.bytesMax,
        size,
        `${name}: ${what}'s answer over ${err.bytesMax} bytes`,
      ),
    };
  }
  const e = err as Error & { code?: string };
  const timedOut =
    e.name === "TimeoutError" ||
    e.code === "UND_ERR_HEADERS_TIMEOUT" ||
    e.code === "UND_ERR_BODY_TIMEOUT";
  return timedOut
    ? {
        ok: false,
        retryable: false,
        error: gatewayError("UPSTREAM_TIMEOUT", `${what} did not answer in time`, {
          detail: `${name}: ${e.message}`,
        }),
      }
    : {
        ok: false,
        retryable: true,
        error: gatewayError("UPSTREAM_UNAVAILABLE", `${what} is unreachable`, {
          detail: `${name}: ${e.code ?? ""} ${e.message}`,
        }),
      };
}
