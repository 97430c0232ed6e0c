import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isMap, isScalar, isSeq, type Node, parseDocument } from "yaml";
import { z } from "zod";
import { runConfigCommand } from "../../src/cli/config-check.ts";
import {
  configSettings,
  joinPath,
  type Setting,
  withReferenceTable,
} from "../../src/config/reference.ts";
import { NETWORK_NAMES } from "../../src/config/schema.ts";

const EXAMPLE = "examples/production.yaml";
const exampleText = readFileSync(EXAMPLE, "utf8");
const settings = configSettings();
const byPath = new Map(settings.map((s) => [s.path, s]));

/** A setting written in the example, with the comment on its line (if any). */
interface Written {
  path: string;
  comment: string | undefined;
}

/** Walks the example as YAML nodes, naming each setting as the reference does. */
function written(): Written[] {
  const doc = parseDocument(exampleText);
  const out: Written[] = [];
  const commentAfter = (node: Node): string | undefined => {
    const end = node.range?.[1] ?? 0;
    const lineEnd = exampleText.indexOf("\n", end);
    const rest = exampleText.slice(end, lineEnd < 0 ? undefined : lineEnd);
    const hash = rest.indexOf("#");
    return hash < 0 ? undefined : rest.slice(hash + 1).trim();
  };
  const visit = (node: unknown, path: string): void => {
    const setting = byPath.get(path);
    if (isMap(node) && !(setting && /per /.test(setting.type))) {
      for (const pair of node.items) {
        const key = String(isScalar(pair.key) ? pair.key.value : pair.key);
        // A table keyed by network: of values, or of settings (verification.networks).
        const perNetwork = joinPath(path, "<network>");
        const asNetwork =
          byPath.has(perNetwork) || [...byPath.keys()].some((p) => p.startsWith(`${perNetwork}.`));
        if (asNetwork) expect(NETWORK_NAMES).toContain(key);
        // A table keyed by names of the operator's choosing (plans).
        const named = joinPath(path, "<name>");
        const asName = [...byPath.keys()].some((p) => p.startsWith(`${named}.`));
        visit(
          pair.value,
          asNetwork ? joinPath(path, "<network>") : asName ? named : joinPath(path, key),
        );
      }
      return;
    }
    if (isSeq(node) && /^list of (`devnet`|objects)/.test(setting?.type ?? "")) {
      out.push({ path, comment: undefined });
      for (const item of node.items) visit(item, `${path}[]`);
      return;
    }
    out.push({
      path,
      comment: isScalar(node) || isMap(node) || isSeq(node) ? commentAfter(node) : undefined,
    });
  };
  visit(doc.contents, "");
  return out;
}

describe("configuration reference", () => {
  it("the operators' configuration page has the table generated from the schema (run `npx tsx scripts/config-reference.ts`)", () => {
    const page = readFileSync("docs/operators/configuration.md", "utf8");
    expect(withReferenceTable(page)).toBe(page);
  });

  it("covers every setting, with limits and defaults read from zod", () => {
    expect(byPath.get("server.port")).toMatchObject({
      type: "integer",
      default: "8545",
      min: 0,
      max: 65535,
    });
    expect(byPath.get("upstreams.electrum.<network>[].tlsVerify")).toMatchObject({
      default: "true",
    });
    expect(byPath.get('pricing."blockchain.transaction.get"')).toMatchObject({
      default: "{ default: 50, mainnet: 100 }",
      limit: "≥ 0",
    });
    expect(byPath.get("upstreams.node.<network>")?.limit).toBe("at least 1");
  });

  it("renders shapes the schema may grow: exclusive bounds, lists of plain values", () => {
    const schema = z.strictObject({
      operator: z
        .strictObject({
          tokenSha256: z.array(z.string().regex(/^[0-9a-f]{64}$/)).default([]),
          share: z.number().gt(0).lt(1).default(0.5),
          drainTimeoutMs: z.number().int().nonnegative().max(300_000).default(10_000),
        })
        .prefault({}),
    });
    expect(
      configSettings(schema).map(({ path, type, default: d, limit }) => [path, type, d, limit]),
    ).toEqual([
      ["operator.tokenSha256", "list of string", "[]", "each matches `^[0-9a-f]{64}$`"],
      ["operator.share", "number", "0.5", "> 0, < 1"],
      ["operator.drainTimeoutMs", "integer", "10000", "0 – 300000"],
    ]);
  });
});

describe(`${EXAMPLE}`, () => {
  const found = written();

  it("writes out every setting the schema has (password only in a comment: secrets stay out)", () => {
    const paths = new Set(found.map((w) => w.path));
    const missing = settings
      .map((s) => s.path)
      .filter((p) => !paths.has(p) && p !== "upstreams.node.<network>[].password");
    expect(missing).toEqual([]);
    expect(exampleText).toMatch(/`password: …` here also works/);
    const unknown = [...paths].filter((p) => !byPath.has(p));
    expect(unknown).toEqual([]);
  });

  it("states each setting's default and limit as the schema has them", () => {
    const wrong: string[] = [];
    const uncommented = new Set<string>();
    // The phrase, not followed by more of a number or word ("default 8545" is not in "default 85450").
    const says = (comment: string, phrase: string) => {
      const text = comment.toLowerCase();
      const want = phrase.toLowerCase();
      for (let at = text.indexOf(want); at >= 0; at = text.indexOf(want, at + 1)) {
        if (!/^[\w.]/.test(text.slice(at + want.length))) return true;
      }
      return false;
    };
    const check = (w: Written, s: Setting) => {
      const comment = w.comment ?? "";
      if (s.default !== undefined && !says(comment, `default ${s.default}`)) {
        wrong.push(`${w.path}: comment lacks "default ${s.default}": ${w.comment}`);
      }
      if (s.limit !== undefined && !says(comment, `limit ${s.limit}`)) {
        wrong.push(`${w.path}: comment lacks "limit ${s.limit}": ${w.comment}`);
      }
    };
    for (const s of settings) {
      if (
        /^list of (`devnet`|objects)/.test(s.type) ||
        (s.default === undefined && s.limit === undefined)
      )
        continue;
      const commented = found.filter((w) => w.path === s.path && w.comment !== undefined);
      if (commented.length === 0) uncommented.add(s.path);
      for (const w of commented) check(w, s);
    }
    expect(wrong).toEqual([]);
    expect([...uncommented]).toEqual([]);
  });

  it("passes blockgate config check with the variables it names set and the files it names present", () => {
    const dir = mkdtempSync(join(tmpdir(), "bg-example-"));
    // The example names production paths; the same file with those paths pointing here.
    let text = exampleText;
    for (const path of [
      "/var/lib/bitcoind/.cookie",
      "/etc/blockgate/fulcrum.pem",
      "/etc/blockgate/electrs-testnet4.pem",
      "/etc/blockgate/electrum-wildcard.pem",
      "/etc/blockgate/electrum-wildcard.key",
    ]) {
      const local = join(dir, path.split("/").at(-1)!);
      writeFileSync(local, "x\n");
      expect(text).toContain(path);
      text = text.replaceAll(path, local);
    }
    const file = join(dir, "production.yaml");
    writeFileSync(file, text);
    const env = {
      DATABASE_URL: "postgres://blockgate@db.internal:5432/blockgate",
      CORE_MAINNET_PASSWORD: "x",
      CORE_TESTNET4_PASSWORD: "x",
      HASURA_ADMIN_SECRET: "x",
    };
    const out = runConfigCommand(["check", file], env);
    const lines = out.text.split("\n");
    expect(lines.filter((l) => l.startsWith("error:"))).toEqual([]);
    expect(lines.filter((l) => l.startsWith("warning:"))).toEqual([]);
    expect(out.code).toBe(0);

    // Everything else in the file is valid: without the pending keys it passes, and says what it serves.
    const settled = parseDocument(text);
    settled.deleteIn(["server", "drainTimeoutMs"]);
    settled.delete("operator");
    writeFileSync(file, settled.toString());
    const valid = runConfigCommand(["check", file], env);
    expect(valid.code).toBe(0);
    expect(valid.text.split("\n").slice(1)).toEqual([
      "networks: mainnet, testnet4",
      "store: PostgreSQL via DATABASE_URL",
      "upstreams:",
      "  node      mainnet   2 upstreams           /node/mainnet",
      "  node      testnet4  1 upstream            /node/testnet4",
      "  electrum  mainnet   3 upstreams           /electrum/mainnet",
      "  electrum  testnet4  1 upstream            /electrum/testnet4",
      "  graph     mainnet   2 upstreams           /graph/mainnet",
      "  graph     testnet4  none (no such route)  /graph/testnet4",
      "  esplora   mainnet   2 upstreams           /esplora/mainnet",
      "  esplora   testnet4  none (no such route)  /esplora/testnet4",
    ]);
  });
});
