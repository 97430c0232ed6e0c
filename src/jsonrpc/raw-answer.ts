import { parseCanonical } from "./canonical-json.ts";
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
const rawResults = new WeakMap<object, RawJsonText>();

export function rawResultAnswer(text: string): RpcAnswer {
  let parsed: { value: Json } | undefined;
  // An own, enumerable getter: a spread or JSON.stringify of the answer sees `result` as before.
  const answer = {
    get result(): Json {
      // The text was scanned as canonical, so parseCanonical reads it (the fallback is a guard).
      parsed ??= { value: parseCanonical(text) ?? parseJson(text) };
      return parsed.value;
    },
  };
  rawResults.set(answer, new RawJsonText(text));
  return answer;
}

/** The answer as a reply renders it: with its result's own text when it came as text. */
export function answerForReply(answer: RpcAnswer): RpcAnswer {
  const raw = rawResults.get(answer);
  return raw ? { result: raw } : answer;
}
