import { readFileSync } from "node:fs";
import { Pool } from "undici";
import type { BitcoinCoreUpstreamConfig } from "../../config/schema.ts";
import { gatewayError } from "../../protocol/errors/codes.ts";
import { type ScannedItem, scanBatchAnswer } from "../../protocol/json/canonical-json.ts";
import {
  allPlainScalars,
  isJsonObject,
  type Json,
  jsonInteger,
  parseJson,
  stringifyJson,
} from "../../protocol/json/json.ts";
import { rawResultAnswer } from "../../protocol/json/raw-answer.ts";
import type { RpcAnswer, RpcCall } from "../../protocol/json/types.ts";
import type { CancelSignal } from "../../util/cancel.ts";
import { deadline, undiciSignal } from "../deadline.ts";
import type { UpstreamFailure as Failure } from "../failover.ts";
import { readLimited, transportFailure } from "../http.ts";

/** An answer's size bound for callers that give none (devnet's Electrum server, tests). */
const RESPONSE_BYTES_MAX = 64 * 1024 * 1024;

/** What one client needs: combining (coalesceCallsMax) is the pool's business. */
export type BitcoinCoreClientConfig = Omit<BitcoinCoreUpstreamConfig, "coalesceCallsMax">;

/**
 * One Bitcoin Core node over HTTP JSON-RPC: keep-alive connections, basic or cookie auth, a
 * timeout per request. Calls go as JSON-RPC 2.0 so that RPC errors come back with HTTP 200 and
 * the node's own code and message, which the gateway passes through.
 */
export class BitcoinCoreClient {
  readonly name: string;
  private readonly pool: Pool;
  private readonly path: string;
  private authorization: string | undefined;
  private nextId = 1;

  constructor(private readonly config: BitcoinCoreClientConfig) {
    const url = new URL(config.url);
    this.name = `${url.hostname}:${url.port || (url.protocol === "https:" ? 443 : 80)}`;
    this.path = url.pathname || "/";
    this.pool = new Pool(url.origin, {
      connections: config.connections,
      keepAliveTimeout: 30_000,
      // Core's -rpcservertimeout is 30 s; stay below it so the node never closes under us.
      keepAliveMaxTimeout: 25_000,
      headersTimeout: config.timeoutMs,
      bodyTimeout: config.timeoutMs,
    });
    if (url.username) {
      this.authorization = basic(
        decodeURIComponent(url.username),
        decodeURIComponent(url.password),
      );
    }
    this.loadCredentials();
  }

  private loadCredentials(): void {
    if (this.config.user !== undefined) {
      this.authorization = basic(this.config.user, this.config.password ?? "");
    } else if (this.config.cookieFile) {
      try {
        const cookie = readFileSync(this.config.cookieFile, "utf8").trim();
        this.authorization = `Basic ${Buffer.from(cookie).toString("base64")}`;
      } catch {
        this.authorization = undefined;
      }
    }
  }

  /**
   * Sends calls as one JSON-RPC batch (one round trip) and returns answers in call order. An
   * answer over `bytesMax` is refused as it comes (RESPONSE_TOO_LARGE): the pool gives the bound
   * of the requests the calls stand for (server.responseBytesMax each, or what is left of it).
   */
  async batch(
    calls: readonly RpcCall[],
    timeoutMs = this.config.timeoutMs,
    bytesMax = RESPONSE_BYTES_MAX,
    /** The pool's: ends the request early (its attempt timed out, or another node answered). */
    signal?: CancelSignal,
  ): Promise<{ ok: true; answers: RpcAnswer[] } | Failure> {
    const first = await this.post(calls, timeoutMs, bytesMax, signal);
    // Core rewrites its cookie on restart: read it again once before giving up.
    if (!first.ok && first.status === 401 && this.config.cookieFile) {
      this.loadCredentials();
      return this.finish(calls, await this.post(calls, timeoutMs, bytesMax, signal));
    }
    return this.finish(calls, first);
  }

  /**
   * For /readyz: the node answers `getblockcount` with a number. The cache's tip already needs
   * that method, so a node whose rpcwhitelist allows the gateway's calls allows this one; a node
   * still warming up (-28) is not ready.
   */
  async probe(timeoutMs: number): Promise<boolean> {
    const out = await this.batch([{ method: "getblockcount", params: [] }], timeoutMs);
    const answer = out.ok ? out.answers[0] : undefined;
    return answer !== undefined && "result" in answer && jsonInteger(answer.result) !== undefined;
  }

  private async post(
    calls: readonly RpcCall[],
    timeoutMs: number,
    bytesMax: number,
    signal: CancelSignal | undefined,
  ): Promise<
    { ok: true; ids: number[]; text: string } | { ok: false; status?: number; failure: Failure }
  > {
    const ids = calls.map(() => this.nextId++);
    const items = calls.map((c, i) => ({
      jsonrpc: "2.0",
      id: ids[i],
      method: c.method,
      params: c.params,
    }));
    // The native writer where it writes the same text (allPlainScalars): the gateway's own calls.
    const body = calls.every((c) => allPlainScalars(c.params))
      ? JSON.stringify(items)
      : stringifyJson(items);
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (this.authorization) headers.authorization = this.authorization;
    const timer = deadline(timeoutMs, signal);
    try {
      const res = await this.pool.request({
        path: this.path,
        method: "POST",
        headers,
        body,
        signal: undiciSignal(timer.signal),
      });
      const text = await readLimited(res, bytesMax);
      if (res.statusCode === 200) return { ok: true, ids, text };
      const retryable = res.statusCode === 503 || res.statusCode >= 500;
      return {
        ok: false,
        status: res.statusCode,
        failure: {
          ok: false,
          retryable,
          error: gatewayError("UPSTREAM_UNAVAILABLE", "the full node is unavailable", {
            detail: `${this.name} answered HTTP ${res.statusCode}: ${text.slice(0, 200)}`,
          }),
        },
      };
    } catch (err) {
      return { ok: false, failure: transportFailure(err, this.name, "the full node") };
    } finally {
      timer.clear();
    }
  }

  private finish(
    calls: readonly RpcCall[],
    posted: Awaited<ReturnType<BitcoinCoreClient["post"]>>,
  ): { ok: true; answers: RpcAnswer[] } | Failure {
    if (!posted.ok) return posted.failure;
    const bad = (why: string): Failure => ({
      ok: false,
      retryable: false,
      error: gatewayError("UPSTREAM_BAD_RESPONSE", "the full node sent an answer we cannot read", {
        detail: `${this.name}: ${why}`,
      }),
    });
    // The usual answer: items split, results kept as text (parsed only if someone reads them).
    const scanned = scanBatchAnswer(posted.text);
    const fast = scanned && answersOf(scanned, posted.ids, calls.length);
    if (fast) return { ok: true, answers: fast };
    let parsed: unknown;
    try {
      parsed = parseJson(posted.text);
    } catch {
      return bad("not JSON");
    }
    if (!Array.isArray(parsed)) return bad("batch answer is not an array");
    const byId = new Map<number, RpcAnswer>();
    for (const item of parsed) {
      if (!isJsonObject(item)) return bad("batch item is not an object");
      const id = jsonInteger(item.id);
      if (id === undefined) return bad("batch item without a numeric id");
      if (isJsonObject(item.error)) {
        const error = errorAnswer(item.error);
        if (!error) return bad("malformed error");
        byId.set(id, error);
      } else if ("result" in item) {
        byId.set(id, { result: item.result ?? null });
      } else {
        return bad("batch item with neither result nor error");
      }
    }
    const answers = inCallOrder(byId, posted.ids, calls.length);
    return typeof answers === "string" ? bad(answers) : { ok: true, answers };
  }

  async close(abort = false): Promise<void> {
    await (abort ? this.pool.destroy() : this.pool.close());
  }
}

/**
 * finish's reading of a scanned answer, to the same answers; null for anything finish would refuse
 * (it then reads the parsed answer and says why), so the scan never decides a failure itself.
 */
function answersOf(
  items: readonly ScannedItem[],
  ids: readonly number[],
  callCount: number,
): RpcAnswer[] | null {
  const byId = new Map<number, RpcAnswer>();
  for (const item of items) {
    // jsonInteger's rule: an integer literal.
    if (item.id === undefined || !/^-?\d+$/.test(item.id)) return null;
    const id = Number(item.id);
    if (item.error?.startsWith("{")) {
      const error = parseJson(item.error);
      const answer = isJsonObject(error) ? errorAnswer(error) : null;
      if (!answer) return null;
      byId.set(id, answer);
    } else if (item.result !== undefined) {
      byId.set(id, rawResultAnswer(item.result, item.scalars));
    } else {
      return null;
    }
  }
  const answers = inCallOrder(byId, ids, callCount);
  return typeof answers === "string" ? null : answers;
}

/** A batch item's error object as an answer; null when it is not Core's {code, message}. */
function errorAnswer(error: { [key: string]: Json }): RpcAnswer | null {
  const code = jsonInteger(error.code);
  if (code === undefined || typeof error.message !== "string") return null;
  return { error: { code, message: error.message } };
}

/** The answers in the order the calls were sent, or why they cannot be. */
function inCallOrder(
  byId: ReadonlyMap<number, RpcAnswer>,
  ids: readonly number[],
  callCount: number,
): RpcAnswer[] | string {
  const answers: RpcAnswer[] = [];
  for (const id of ids) {
    const answer = byId.get(id);
    if (!answer) return `no answer for id ${id}`;
    answers.push(answer);
  }
  return answers.length === callCount ? answers : "answer count differs";
}

function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
}
