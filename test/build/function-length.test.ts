// Functions in src/ fit on a screen: orchestration is split into named steps. The exceptions are
// tables (one entry per method or field, read top to bottom) and are listed here with the reason.
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative } from "node:path";
import type TS from "typescript";
import { expect, it } from "vitest";

// Required, not imported: imported, node first scans its 9 MB for the names it exports.
const ts = createRequire(import.meta.url)("typescript") as typeof TS;

const LINES_MAX = 80;
const root = join(import.meta.dirname, "..", "..");

/** `file:function` → why it may be longer. */
const ALLOWED: Record<string, string> = {
  "src/devnet/bitcoin-core/tx-submit-methods.ts:txSubmitMethods":
    "a table of devnet Core's RPC handlers, one entry per method",
  "src/devnet/bitcoin-core/tx-methods.ts:txReadMethods":
    "a table of devnet Core's RPC handlers, one entry per method",
  "src/devnet/bitcoin-core/block-methods.ts:blockMethods":
    "a table of devnet Core's RPC handlers, one entry per method",
  "src/devnet/bitcoin-core/mempool-methods.ts:mempoolMethods":
    "a table of devnet Core's RPC handlers, one entry per method",
};

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith(".ts") && !e.name.endsWith(".d.ts") ? [path] : [];
  });
}

function nameOf(node: TS.FunctionLikeDeclaration): string {
  if (node.name) return node.name.getText();
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) {
    return parent.name.getText();
  }
  return "<anonymous>";
}

/** Every function of `file` longer than LINES_MAX, as `file:name (lines)`. */
function longFunctions(file: string): { key: string; lines: number }[] {
  const text = readFileSync(file, "utf8");
  // A file no longer than the limit holds no function longer than it: not parsed.
  if (text.split("\n").length <= LINES_MAX) return [];
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: { key: string; lines: number }[] = [];
  const visit = (node: TS.Node): void => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const fn = node as TS.FunctionLikeDeclaration;
      const first = source.getLineAndCharacterOfPosition(fn.getStart()).line;
      const last = source.getLineAndCharacterOfPosition(fn.end).line;
      const lines = last - first + 1;
      const key = `${relative(root, file)}:${nameOf(fn)}`;
      if (lines > LINES_MAX) found.push({ key, lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

it(`no function in src/ runs past ${LINES_MAX} lines, but the tables listed`, () => {
  const long = sources(join(root, "src")).flatMap(longFunctions);
  const unlisted = long.filter((f) => !(f.key in ALLOWED)).map((f) => `${f.key} (${f.lines})`);
  expect(unlisted, "split them into named steps, or list a table here with why").toEqual([]);
  // An entry that no longer needs to be here goes, so the list stays the truth.
  const stale = Object.keys(ALLOWED).filter((key) => !long.some((f) => f.key === key));
  expect(stale).toEqual([]);
});

it("no comment in src/ points at an issue number", () => {
  const mentions = sources(join(root, "src")).flatMap((file) =>
    readFileSync(file, "utf8")
      .split("\n")
      .flatMap((line, i) =>
        /\bissue #?\d+/i.test(line) ? [`${relative(root, file)}:${i + 1}: ${line.trim()}`] : [],
      ),
  );
  expect(mentions).toEqual([]);
});
