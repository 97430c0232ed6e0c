/**
 * Bitcoin Core's bound on JSON nesting (UniValue's MAX_JSON_DEPTH): a body nested deeper is
 * "Parse error" there, and so here. It is also the default of `server.jsonDepthMax`.
 */
export const JSON_DEPTH_MAX = 512;

/**
 * Whether `text` opens more than `max` arrays and objects inside one another. One pass, no
 * recursion and no allocation, run before any parser sees the text: a recursive parser would
 * overflow its stack on a body of `[`s, and even an
 * iterative one hands later code a value too deep to walk. Strings are skipped, escapes included,
 * so brackets inside them do not count. Malformed text is the parser's to refuse, not ours.
 */
export function jsonDepthOver(text: string, max: number): boolean {
  // Each level takes at least one character.
  if (text.length <= max) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}
