import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The documentation holds together: every relative link (and #anchor) in README.md,
 * CONTRIBUTING.md and docs/ resolves inside the repository, every page is linked from another, the
 * pages stay short enough to read, and none points outside the repository or at an issue tracker.
 */
const PAGES = [
  "README.md",
  "CONTRIBUTING.md",
  ...readdirSync("docs", { recursive: true })
    .map(String)
    .filter((p) => p.endsWith(".md"))
    .map((p) => join("docs", p))
    .sort(),
];

interface Link {
  page: string;
  line: number;
  target: string;
}

/** The text without fenced code blocks and inline code, line numbers kept. */
function prose(text: string): string {
  let fenced = false;
  return text
    .split("\n")
    .map((line) => {
      if (/^\s*(```|~~~)/.test(line)) {
        fenced = !fenced;
        return "";
      }
      return fenced ? "" : line.replace(/`[^`]*`/g, "");
    })
    .join("\n");
}

function linksOf(page: string): Link[] {
  const out: Link[] = [];
  prose(readFileSync(page, "utf8"))
    .split("\n")
    .forEach((text, i) => {
      for (const m of text.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
        out.push({ page, line: i + 1, target: m[1]! });
      }
    });
  return out;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .trim()
    .replace(/\s/g, "-");
}

const anchorCache = new Map<string, Set<string>>();
function anchorsOf(page: string): Set<string> {
  const known = anchorCache.get(page);
  if (known) return known;
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of readFileSync(page, "utf8").split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const m = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  anchorCache.set(page, anchors);
  return anchors;
}

/** Why a relative link does not resolve, or undefined when it does. */
function broken(link: Link): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(link.target)) return undefined;
  const [path = "", anchor] = link.target.split("#");
  const file = path === "" ? link.page : normalize(join(dirname(link.page), path));
  if (relative(".", file).startsWith("..")) return "points outside the repository";
  if (!existsSync(file)) return `${file} does not exist`;
  if (anchor === undefined || statSync(file).isDirectory() || !file.endsWith(".md")) return;
  return anchorsOf(file).has(anchor) ? undefined : `${file} has no heading #${anchor}`;
}

const FORBIDDEN: [RegExp, string][] = [
  [/\bissues?\s+#?\d+/i, "an issue number"],
  [/(^|[\s(])#\d+\b/, "an issue reference (#N)"],
  [/\bDESIGN\.md\b/, "DESIGN.md, which is not in the repository"],
  [/§/, "a section of a specification outside the repository"],
  [/\.\.\/shared\b|\/work\/|shared\/spec/, "a path outside the repository"],
];

describe("documentation", () => {
  it("finds the pages", () => {
    expect(PAGES).toContain("docs/architecture.md");
    expect(PAGES.length).toBeGreaterThan(10);
  });

  it("has every relative link and anchor resolve inside the repository", () => {
    const problems = PAGES.flatMap(linksOf)
      .map((l) => ({ l, why: broken(l) }))
      .filter((x) => x.why !== undefined)
      .map(({ l, why }) => `${l.page}:${l.line}: ${l.target}: ${why}`);
    expect(problems).toEqual([]);
  });

  it("links every page under docs/ from another page", () => {
    const linked = new Set(
      PAGES.flatMap(linksOf)
        .filter((l) => !/^[a-z][a-z0-9+.-]*:/i.test(l.target))
        .map((l) => ({ from: l.page, path: l.target.split("#")[0] ?? "" }))
        .filter(({ path }) => path !== "")
        .map(({ from, path }) => normalize(join(dirname(from), path))),
    );
    const orphans = PAGES.filter((p) => p.startsWith("docs/") && !linked.has(p));
    expect(orphans).toEqual([]);
  });

  it("names no issue, and nothing outside the repository", () => {
    const found: string[] = [];
    for (const page of PAGES) {
      readFileSync(page, "utf8")
        .split("\n")
        .forEach((line, i) => {
          for (const [pattern, what] of FORBIDDEN) {
            if (pattern.test(line)) found.push(`${page}:${i + 1}: ${what}: ${line.trim()}`);
          }
        });
    }
    expect(found).toEqual([]);
  });

  it("keeps the README under 200 lines and every page under 600", () => {
    const lines = (page: string) => readFileSync(page, "utf8").split("\n").length - 1;
    expect(lines("README.md")).toBeLessThanOrEqual(200);
    const long = PAGES.filter((p) => lines(p) > 600).map((p) => `${p}: ${lines(p)} lines`);
    expect(long).toEqual([]);
  });
});
