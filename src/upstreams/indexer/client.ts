import { Pool } from "undici";
import { type GatewayError, gatewayError } from "../../protocol/errors/codes.ts";
import type { GraphRequest } from "../../protocol/hasura/request.ts";
import { isJsonObject, type Json, parseJson, stringifyJson } from "../../protocol/json/json.ts";
import type { CancelSignal } from "../../util/cancel.ts";
import { deadline, undiciSignal, withDeadline } from "../deadline.ts";
import type { UpstreamFailure } from "../failover.ts";
import { readLimited, transportFailure } from "../http.ts";

/** One indexer as the gateway reaches it (config resolved: the secret read from the environment). */
export interface IndexerUpstreamConfig {
  url: string;
  adminSecret?: string | undefined;
  timeoutMs: number;
  connections: number;
}

export type IndexerAnswer = { ok: true; data: { [key: string]: Json } } | UpstreamFailure;

/** An answer's size bound when the pool gives none (server.responseBytesMax's default). */
const RESPONSE_BYTES_MAX = 64 * 1024 * 1024;

/**
 * One Hasura-style indexer over GraphQL-over-HTTP: keep-alive connections, the admin secret in
 * `x-hasura-admin-secret`, a timeout per request and an optional deadline from the caller.
 * Hasura answers errors with HTTP 200 and `errors` instead of `data`; those become gateway
 * errors here: a refused secret is the gateway's misconfiguration (another indexer may accept it),
 * anything else is an answer we cannot pass on as data. Numbers keep their literal text.
 */
export class IndexerClient {
  readonly name: string;
  private readonly pool: Pool;
  private readonly path: string;

  constructor(
    private readonly config: IndexerUpstreamConfig,
    /** One answer, at most (server.responseBytesMax): past it, RESPONSE_TOO_LARGE. */
    private readonly responseBytesMax = RESPONSE_BYTES_MAX,
  ) {
    const url = new URL(config.url);
    this.name = `${url.hostname}:${url.port || (url.protocol === "https:" ? 443 : 80)}`;
    this.path = `${url.pathname}${url.search}` || "/";
    this.pool = new Pool(url.origin, {
      connections: config.connections,
      keepAliveTimeout: 30_000,
      headersTimeout: config.timeoutMs,
      bodyTimeout: config.timeoutMs,
    });
  }

  /**
   * One query. `parse` reads the answer's text: lossless by default (the graph route relays
   * numbers as they came); a caller that turns every number into a double anyway may pass a plain
   * parser, which is several times faster on a list of rows.
   */
  async query(
    request: GraphRequest,
    outer?: CancelSignal,
    parse: (text: string) => Json = parseJson,
  ): Promise<IndexerAnswer> {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (this.config.adminSecret !== undefined) {
      headers["x-hasura-admin-secret"] = this.config.adminSecret;
    }
    // This attempt's timeout, ended early by the caller's deadline (failover included) if given.
    const timeout = deadline(this.config.timeoutMs, outer);
    let status: number;
    let text: string;
    try {
      const res = await this.pool.request({
        path: this.path,
        method: "POST",
        headers,
        body: stringifyJson({
          query: request.query,
          variables: request.variables,
          ...(request.operationName !== undefined ? { operationName: request.operationName } : {}),
        }),
        signal: undiciSignal(timeout.signal),
      });
      status = res.statusCode;
      text = await readLimited(res, this.responseBytesMax);
    } catch (err) {
      return transportFailure(err, this.name, "the indexer");
    } finally {
      timeout.clear();
    }
    if (status !== 200) {
      return {
        ok: false,
        retryable: status >= 500,
        error: gatewayError("UPSTREAM_UNAVAILABLE", "the indexer is unavailable", {
          detail: `${this.name} answered HTTP ${status}: ${text.slice(0, 200)}`,
        }),
      };
    }
    return this.read(text, parse);
  }

  /** For /readyz: the indexer answers `{ __typename }` (no table is read). */
  async probe(timeoutMs: number): Promise<boolean> {
    const out = await withDeadline(timeoutMs, (signal) =>
      this.query({ query: "{ __typename }", variables: {}, operationName: undefined }, signal),
    );
    return out.ok;
  }

  private read(text: string, parse: (text: string) => Json): IndexerAnswer {
    const bad = (why: string, upstreamCode?: string): IndexerAnswer => ({
      ok: false,
      retryable: false,
      error: gatewayError("UPSTREAM_BAD_RESPONSE", "the indexer could not answer this query", {
        detail: `${this.name}: ${why}`,
        // The code is shown (a client can report it); the indexer's words stay in our logs.
        data: upstreamCode === undefined ? {} : { upstreamCode },
        ...(upstreamCode === undefined ? {} : { upstreamCode }),
      }),
    });
    let body: Json;
    try {
      body = parse(text);
    } catch {
      return bad("not JSON");
    }
    if (!isJsonObject(body)) return bad("answer is not an object");
    const errors = body.errors;
    if (Array.isArray(errors) && errors.length > 0) {
      const first = errors[0];
      const message = isJsonObject(first) && typeof first.message === "string" ? first.message : "";
      const ext = isJsonObject(first) && isJsonObject(first.extensions) ? first.extensions : {};
      const code = typeof ext.code === "string" ? ext.code : "unknown";
      if (code === "access-denied") return refused(this.name, message);
      // The gateway checked the query against the same schema: an indexer that still refuses it
      // runs another schema. Its code travels to the client; its words stay in our logs.
      return bad(`Hasura ${code} at ${String(ext.path ?? "$")}: ${message}`, code);
    }
    if (!isJsonObject(body.data)) return bad("no data");
    return { ok: true, data: body.data };
  }

  async close(abort = false): Promise<void> {
    await (abort ? this.pool.destroy() : this.pool.close());
  }
}

function refused(name: string, message: string): UpstreamFailure {
  const error: GatewayError = gatewayError("UPSTREAM_UNAVAILABLE", "the indexer is unavailable", {
    detail: `${name} refused the admin secret: ${message}`,
  });
  return { ok: false, retryable: true, error };
}
