import { parseCanonical, type ScalarSpan, scalarsOfSpans } from "./canonical-json.ts";
import { type Json, parseJson, RawJsonText } from "./json.ts";
import type { RpcAnswer } from "./types.ts";

/**
 * An upstream's result kept as the JSON text it came in (already checked to be what parsing and
 * writing it again would give: src/jsonrpc/canonical-json.ts). The node route writes
 * that text to its caller as it is; whoever reads `result` (the unified API, the response cache,
 * the chain guard) gets it parsed, once, on first reading — so a result nobody looks into is never
 * parsed at all. The text is found through a WeakMap rather than a property of the answer, so a
 * copy made with a spread (`{...answer, result: x}`) is never taken for the original.
 */
const rawResults = new WeakMap<object, RawResult>();

/** A result kept as text: the text, and what has been read of it so far (each read once). */
interface RawResult {
  raw: RawJsonText;
  /** Where an object result's scalar members lie in the text (found by the scan). */
  spans: readonly ScalarSpan[] | undefined;
  parsed?: { value: Json };
  scalars?: Json;
}

export function rawResultAnswer(text: string, spans?: readonly ScalarSpan[]): RpcAnswer {
  const kept: RawResult = { raw: new RawJsonText(text), spans };
  // An own, enumerable getter: a spread or JSON.stringify of the answer sees `result` as before.
  const answer = {
    get result(): Json {
      // The text was scanned as canonical, so parseCanonical reads it (the fallback is a guard).
      kept.parsed ??= { value: parseCanonical(text) ?? parseJson(text) };
      return kept.parsed.value;
    },
  };
  rawResults.set(answer, kept);
  return answer;
}

/** The answer as a reply renders it: with its result's own text when it came as text. */
export function answerForReply(answer: RpcAnswer): RpcAnswer {
  const kept = rawResults.get(answer);
  return kept ? { result: kept.raw } : answer;
}

/**
 * The members of an answer's result that are not objects or arrays: from its text when it came as
 * text (a verbose transaction without building its vin and vout, from the spans its scan found:
 * scalarsOfSpans), else from the result itself, whose other members the caller does not read.
 * All a verbose getrawtransaction's readers need when they want no prevouts
 * (src/graphql/loaders.ts, src/cache/from-core.ts); a result that is not an object is returned as
 * it is.
 */
export function resultScalars(answer: { result: Json }): Json {
  const kept = rawResults.get(answer);
  // Answers are shared by the requests whose trips were (src/upstreams/shared-trips.ts): read once.
  if (!kept?.spans || kept.parsed) return answer.result;
  kept.scalars ??= scalarsOfSpans(kept.raw.text, kept.spans);
  return kept.scalars;
}
