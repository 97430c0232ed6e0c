import { gatewayError } from "../errors/codes.ts";
import type { UpstreamFailure } from "./failover.ts";

/** Reads an upstream's answer, refusing more than `bytesMax` (a broken upstream must not OOM us). */
export async function readLimited(body: AsyncIterable<Buffer>, bytesMax: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > bytesMax) throw Object.assign(new Error("answer too large"), { code: "TOO_LARGE" });
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * A request that got no HTTP answer: a timeout (ours, undici's, or the caller's deadline) is
 * final — retrying would stretch the client's wait — while a refused or dropped connection lets
 * the pool try the next upstream. `what` names the upstream for the public message.
 */
export function transportFailure(err: unknown, name: string, what: string): UpstreamFailure {
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
