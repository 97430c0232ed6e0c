import { Pool } from "undici";
import { gatewayError } from "../../protocol/errors/codes.ts";
import type { CancelSignal } from "../../util/cancel.ts";
import { deadline, undiciSignal, withDeadline } from "../deadline.ts";
import type { UpstreamFailure } from "../failover.ts";
import { readLimitedBytes, transportFailure } from "../http.ts";

/** One Esplora server as the gateway reaches it: its API's base URL (`…/api`). */
export interface EsploraUpstreamConfig {
  url: string;
  timeoutMs: number;
  connections: number;
}

/** An Esplora answer as it came: its status, content type and bytes (an error's too). */
export interface EsploraAnswer {
  ok: true;
  status: number;
  contentType: string;
  body: Buffer;
}

/** An answer's size bound when the pool gives none (server.responseBytesMax's default). */
const RESPONSE_BYTES_MAX = 64 * 1024 * 1024;

/** One request to an Esplora server: a method, a path below the API's base, a body for POST. */
export interface EsploraCall {
  method: "GET" | "POST";
  path: string;
  body?: string;
}

/**
 * One Esplora server (electrs' REST API) over HTTP: keep-alive connections, a timeout per request
 * and an optional deadline from the caller. Esplora refuses in plain text with a 4xx status (400
 * "Invalid hex string", 404 "Transaction not found"): those are answers, passed on as they came.
 * A 5xx (a server that cannot answer now) is a failure another server may not have.
 */
export class EsploraClient {
  readonly name: string;
  private readonly pool: Pool;
  private readonly base: string;

  constructor(
    private readonly config: EsploraUpstreamConfig,
    private readonly responseBytesMax = RESPONSE_BYTES_MAX,
  ) {
    const url = new URL(config.url);
    this.name = `${url.hostname}:${url.port || (url.protocol === "https:" ? 443 : 80)}`;
    this.base = url.pathname.replace(/\/+$/, "");
    this.pool = new Pool(url.origin, {
      connections: config.connections,
      keepAliveTimeout: 30_000,
      headersTimeout: config.timeoutMs,
      bodyTimeout: config.timeoutMs,
    });
  }

  async request(call: EsploraCall, outer?: CancelSignal): Promise<EsploraAnswer | UpstreamFailure> {
    const timeout = deadline(this.config.timeoutMs, outer);
    try {
      const res = await this.pool.request({
        path: `${this.base}${call.path}`,
        method: call.method,
        ...(call.body === undefined
          ? {}
          : { body: call.body, headers: { "content-type": "text/plain" } }),
        signal: undiciSignal(timeout.signal),
      });
      const body = await readLimitedBytes(res, this.responseBytesMax);
      const type = res.headers["content-type"];
      const contentType = (Array.isArray(type) ? type[0] : type) ?? "text/plain";
      if (res.statusCode >= 500) {
        return {
          ok: false,
          retryable: true,
          error: gatewayError("UPSTREAM_UNAVAILABLE", "the Esplora server is unavailable", {
            detail: `${this.name} answered HTTP ${res.statusCode}: ${body.toString("utf8", 0, 200)}`,
          }),
        };
      }
      return { ok: true, status: res.statusCode, contentType, body };
    } catch (err) {
      return transportFailure(err, this.name, "the Esplora server");
    } finally {
      timeout.clear();
    }
  }

  /** For /readyz and the background health check: the server tells its tip's height. */
  async probe(timeoutMs: number): Promise<boolean> {
    const out = await withDeadline(timeoutMs, (signal) =>
      this.request({ method: "GET", path: "/blocks/tip/height" }, signal),
    );
    return out.ok && out.status === 200;
  }

  async close(abort = false): Promise<void> {
    await (abort ? this.pool.destroy() : this.pool.close());
  }
}
