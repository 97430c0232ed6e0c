import { RawJsonText, stringifyJson } from "./json.ts";

/**
 * A JSON array's text, an item at a time, as the connection takes it. A reply whose result came
 * as text goes as three parts — its envelope around that text, and the text itself — so the
 * upstream's text is written as it is, never copied into a new string of the same size.
 */
export function* arrayParts(items: readonly Record<string, unknown>[]): Iterable<string> {
  yield "[";
  for (const [i, item] of items.entries()) {
    const comma = i > 0 ? "," : "";
    const { result } = item;
    if (!(result instanceof RawJsonText)) {
      yield `${comma}${stringifyJson(item)}`;
      continue;
    }
    // The first is the envelope's own: `result` comes before `id` in every reply (envelope.ts).
    const shell = stringifyJson({ ...item, result: null });
    const at = shell.indexOf(RESULT_NULL) + RESULT_KEY.length;
    yield `${comma}${shell.slice(0, at)}`;
    yield result.text;
    yield shell.slice(at + 4);
  }
  yield "]";
}

const RESULT_KEY = '"result":';
const RESULT_NULL = `${RESULT_KEY}null`;
