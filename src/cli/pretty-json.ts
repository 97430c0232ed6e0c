/**
 * Re-indents compact JSON the way bitcoin-cli prints a result (UniValue::write(2)): two spaces
 * per level, `"key": value`, empty containers as `[]` and `{}`.
 */
export function prettyCore(compact: string): string {
  let out = "";
  let depth = 0;
  let inString = false;
  for (let i = 0; i < compact.length; i++) {
    const c = compact[i]!;
    if (inString) {
      out += c;
      if (c === "\\") out += compact[++i] ?? "";
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') {
      inString = true;
      out += c;
    } else if (c === "{" || c === "[") {
      const close = c === "{" ? "}" : "]";
      if (compact[i + 1] === close) {
        out += c + close;
        i++;
      } else {
        depth++;
        out += `${c}\n${"  ".repeat(depth)}`;
      }
    } else if (c === "}" || c === "]") {
      depth--;
      out += `\n${"  ".repeat(depth)}${c}`;
    } else if (c === ",") {
      out += `,\n${"  ".repeat(depth)}`;
    } else if (c === ":") {
      out += ": ";
    } else {
      out += c;
    }
  }
  return out;
}
