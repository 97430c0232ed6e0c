import { parseCanonical, type ScalarSpan, scalarsOfSpans } from "./canonical-json.ts";
import { isJsonObject, type Json, parseJson, RawJsonText, stringifyJson } from "./json.ts";
import type { RpcAnswer } from "./types.ts";

/**
 * An upstream's result kept as the JSON text it came in (canonical-json.ts checked it): the node
 * route writes the text as it is; whoever reads `result` gets it parsed once, on first reading.
 * The text sits in a private field found by a brand check, so a spread copy is never taken for
 * the original; `result` is one shared accessor, since a getter per answer lives in the old
 * generation and kept each answer's text alive (test/jsonrpc/raw-answer.test.ts).
 */
class RawAnswer {
  readonly #kept: RawResult;

  constructor(kept: RawResult) {
    this.#kept = kept;
    // An own, enumerable accessor, shared by every answer: a spread or JSON.stringify of the
    // answer sees `result` as a plain answer's, and no answer carries a closure of its own.
    Object.defineProperty(this, "result", RESULT);
  }

  static kept(answer: object): RawResult | undefined {
    return #kept in answer ? (answer as RawAnswer).#kept : undefined;
  }
}

const RESULT: PropertyDescriptor = {
  get(this: RawAnswer): Json {
    const kept = RawAnswer.kept(this) as RawResult;
    // The text was scanned as canonical, so parseCanonical reads it (the fallback is a guard).
    kept.parsed ??= { value: parseCanonical(kept.raw.text) ?? parseJson(kept.raw.text) };
    return kept.parsed.value;
  },
  enumerable: true,
  configurable: true,
};

/** A result kept as text: the text, and what has been read of it so far (each read once). */
interface RawResult {
  raw: RawJsonText;
  /** Where an object result's scalar members lie in the text (found by the scan). */
  spans: readonly ScalarSpan[] | undefined;
  parsed?: { value: Json };
  scalars?: Json;
}

export function rawResultAnswer(text: string, spans?: readonly ScalarSpan[]): RpcAnswer {
  return new RawAnswer({ raw: new RawJsonText(text), spans }) as unknown as RpcAnswer;
}

/** The answer as a reply renders it: with its result's own text when it came as text. */
export function answerForReply(answer: RpcAnswer): RpcAnswer {
  const kept = RawAnswer.kept(answer);
  return kept ? { result: kept.raw } : answer;
}

/**
 * The members of an answer's result that are not objects or arrays: from its text when it came as
 * text (a verbose transaction without building its vin and vout, from the spans its scan found:
 * scalarsOfSpans), else from the result itself, whose other members the caller does not read.
 * All a verbose getrawtransaction's readers need when they want no prevouts
 * (src/routes/gateway/loaders.ts, src/cache/from-core.ts); a result that is not an object is returned as
 * it is.
 */
export function resultScalars(answer: { result: Json }): Json {
  const kept = RawAnswer.kept(answer);
  // Answers are shared by the requests whose trips were (src/upstreams/shared-trips.ts): read once.
  if (!kept?.spans || kept.parsed) return answer.result;
  kept.scalars ??= scalarsOfSpans(kept.raw.text, kept.spans);
  return kept.scalars;
}

/**
 * The bytes an answer takes in a reply where that is known without writing it (its text as it
 * came, a text already written, a string); 0 for anything else.
 */
export function keptBytes(answer: RpcAnswer): number {
  const kept = RawAnswer.kept(answer);
  if (kept) return kept.raw.text.length;
  if ("error" in answer) return 0;
  const { result } = answer;
  if (result instanceof RawJsonText) return result.text.length;
  return typeof result === "string" ? result.length + 2 : 0;
}

/**
 * The bytes an answer takes in a reply: its result's text when it came as text (no work), else
 * its JSON written out (answers built by the gateway, or parsed from a non-canonical reply).
 */
export function answerBytes(answer: RpcAnswer): number {
  const kept = RawAnswer.kept(answer);
  if (kept) return kept.raw.text.length;
  if ("error" in answer) return stringifyJson(answer.error).length;
  const { result } = answer;
  if (result instanceof RawJsonText) return result.text.length;
  return typeof result === "string" ? result.length + 2 : stringifyJson(result).length;
}

/**
 * The answer with its result's integer member `key` set to `value` (a verified block's
 * confirmations), the rest as it came: spliced into the text of an answer kept as text, copied
 * into a plain one. An answer without that member, or not an object, is returned as it is.
 */
export function withIntegerMember(answer: RpcAnswer, key: string, value: number): RpcAnswer {
  if ("error" in answer) return answer;
  const kept = RawAnswer.kept(answer);
  if (kept?.spans) {
    const span = kept.spans.find((s) => s.key === key);
    if (!span) return answer;
    const text = String(value);
    const delta = text.length - (span.end - span.start);
    const raw = kept.raw.text;
    const spliced = `${raw.slice(0, span.start)}${text}${raw.slice(span.end)}`;
    const spans = kept.spans.map((s) =>
      s.start < span.start
        ? s
        : s === span
          ? { ...s, end: s.end + delta }
          : { ...s, start: s.start + delta, end: s.end + delta },
    );
    return rawResultAnswer(spliced, spans);
  }
  const { result } = answer;
  if (!isJsonObject(result) || !(key in result)) return answer;
  return { result: { ...result, [key]: value } };
}
