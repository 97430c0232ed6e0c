import type { IncomingMessage } from "node:http";
import type { DocumentNode } from "graphql";
import type { NetworkName } from "../../../config/schema.ts";
import { variablesNesting } from "../../../protocol/graphql/nesting.ts";
import { jsonDepthOver } from "../../../protocol/json/json-depth.ts";
import { LruMap } from "../../../util/lru.ts";
import type { DocumentCache } from "../plugins/document-cache.ts";
import { type DocumentShape, type LiteralRule, shapeOf } from "../plugins/document-shape.ts";
import { replyKey } from "../request-key.ts";
import type { GatewayServices } from "../services.ts";

/** Learnings tried per document before it is left to Yoga for good (while remembered). */
const LEARNINGS_MAX = 3;

/** Longest query text planned (UTF-16 units): the plans' keys stay within queryPlansMax × this. */
export const PLANNED_QUERY_MAX = 16 * 1024;

/**
 * A document that asked the indexer alone, or transactions by txid alone, learnt from one
 * execution (learn.ts): what serving a document of the same shape (../plugins/document-shape.ts:
 * the same text, or the same but for its literal values) without Yoga needs (serve.ts).
 */
export interface Plan {
  operationName: string | undefined;
  /** What another document of the shape must satisfy to be valid as the executed one was. */
  literals: LiteralRule;
  /** Yoga's response headers for it, the X-Credits-* ones aside. */
  headers: Record<string, string>;
}

/** A request of the unified API as a plan would take it: a POST of JSON, its body read. */
export interface PlanRequest {
  key: string;
  /** The query parsed (the document cache's node for its text, when it keeps one). */
  document: DocumentNode;
  shape: DocumentShape;
  variables: Record<string, unknown>;
  operationName: string | undefined;
}

/** The plans of one running gateway, by network, headers, operation name and document shape. */
export class Plans {
  private readonly plans: LruMap<string, Plan> | null;
  /**
   * Keys executed and not planned, with the times learning failed: a document is learnt on its
   * second execution, so the plans are not churned by documents sent once (most of a hostile or
   * exploratory stream); one whose learning keeps failing stops being tried after LEARNINGS_MAX.
   */
  private readonly seen: LruMap<string, number> | null;
  /** For benches and tests: requests served by a plan, and planned ones the executor answered. */
  readonly stats = { learnt: 0, served: 0, executed: 0 };

  constructor(entriesMax: number) {
    this.plans = entriesMax > 0 ? new LruMap(entriesMax) : null;
    this.seen = entriesMax > 0 ? new LruMap(entriesMax) : null;
  }

  /** Whether an execution of `key` should be learnt from: true from its second one on. */
  worthLearning(key: string): boolean {
    if (!this.seen) return false;
    const failed = this.seen.get(key);
    if (failed === undefined) this.seen.set(key, 0);
    return failed !== undefined && failed < LEARNINGS_MAX;
  }

  /**
   * A plan whose indexer answered in a shape it cannot write (the executor answered instead, at
   * the cost of a second trip): dropped, so the next requests go to Yoga and do not pay it again.
   */
  forget(key: string): void {
    if (this.plans?.delete(key)) this.seen?.set(key, LEARNINGS_MAX);
  }

  get enabled(): boolean {
    return this.plans !== null;
  }

  get(key: string): Plan | undefined {
    return this.plans?.get(key);
  }

  /** What learning `key` came to: a plan, or null when the execution did not prove one. */
  learnt(key: string, plan: Plan | null): void {
    if (!plan) {
      this.seen?.set(key, (this.seen.get(key) ?? 0) + 1);
      return;
    }
    if (!this.plans) return;
    this.seen?.delete(key);
    this.plans.set(key, plan);
    this.stats.learnt += 1;
  }
}

/**
 * The request as a plan takes it, or null: a POST of JSON that is not a dry run, whose body is
 * an object of `query` (a string), `variables` (an object, or none) and `operationName` (a string,
 * or none) and nothing else, and whose query parses. The key holds what Yoga's answer depends on
 * besides the variables (../request-key.ts), the operation and the document's shape: a plan
 * learnt from one document serves every document of its shape whose literals fit (serve.ts).
 */
export function planRequest(
  { plans, documents }: { plans: Plans; documents: DocumentCache },
  app: GatewayServices,
  network: NetworkName,
  req: IncomingMessage,
  body: string,
): PlanRequest | null {
  const replied = replyKey(network, req);
  if (replied === null || !plans.enabled) return null;
  if (jsonDepthOver(body, app.config.server.jsonDepthMax)) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return null;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return null;
  const { query, variables, operationName, ...rest } = parsed as Record<string, unknown>;
  if (Object.keys(rest).length > 0) return null;
  if (typeof query !== "string" || query.length > PLANNED_QUERY_MAX) return null;
  if (variables !== undefined && variables !== null) {
    if (typeof variables !== "object" || Array.isArray(variables)) return null;
    // Nested too deep for the walks a plan makes: Yoga refuses it (plugins/input-depth.ts).
    if (variablesNesting(variables)) return null;
  }
  // An empty name is left to Yoga: whether it names no operation is its to say.
  if (operationName !== undefined && operationName !== null) {
    if (typeof operationName !== "string" || operationName === "") return null;
  }
  const name = operationName ?? undefined;
  const document = documents.parsed(query, app.config.graphql.tokensMax);
  const shape = document && shapeOf(document);
  if (!document || !shape) return null;
  return {
    key: `${replied}\u0000${name ?? ""}\u0000${shape.key}`,
    document,
    shape,
    variables: (variables ?? {}) as Record<string, unknown>,
    operationName: name,
  };
}
