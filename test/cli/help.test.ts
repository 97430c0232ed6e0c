import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DB_COMMANDS, parseLine } from "../../src/cli/commands.ts";
import { LOCAL_COMMANDS } from "../../src/cli/local-commands.ts";
import { blockgate } from "../support/spawn.ts";

const ALL = { ...DB_COMMANDS, ...LOCAL_COMMANDS };
const GROUPS = [
  ...new Set(Object.keys(ALL).flatMap((k) => (k.includes(" ") ? [k.split(" ")[0]!] : []))),
];

/** What parsing `argv` prints at once: help, version or a mistake. */
function printed(...argv: string[]) {
  const parsed = parseLine(argv);
  if (!("out" in parsed)) throw new Error(`${argv.join(" ")} parsed as a command to run`);
  return parsed.out;
}

describe("--help", () => {
  it.each(
    Object.keys(ALL),
  )("blockgate %s --help: its usage, options and an example, exit 0", (key) => {
    const spec = ALL[key]!;
    const out = printed(...key.split(" "), "--help");
    expect(out.code).toBe(0);
    expect(out.text.split("\n")[0]).toBe(`Usage: blockgate ${key} ${spec.usage || "[options]"}`);
    expect(out.text).toContain(spec.summary);
    for (const flag of spec.options) expect(out.text).toContain(`--${flag.name}`);
    if (spec.json) expect(out.text).toContain("--json");
    expect(out.text).toMatch(/\nExamples?:\n {2}\$ blockgate /);
    expect(printed("help", ...key.split(" "))).toEqual(out);
  });

  it.each(GROUPS)("blockgate %s --help lists its commands, exit 0", (group) => {
    const out = printed(group, "--help");
    expect(out.code).toBe(0);
    for (const key of Object.keys(ALL).filter((k) => k.startsWith(`${group} `))) {
      expect(out.text).toContain(`\n  ${key.split(" ")[1]} `);
    }
  });

  it("blockgate --help: the overview of every command, exit 0; --version: package.json's", () => {
    const out = printed("--help");
    expect(out.code).toBe(0);
    for (const key of Object.keys(ALL)) expect(out.text).toContain(`\n  ${key}`);
    const { version } = JSON.parse(readFileSync("package.json", "utf8")) as { version: string };
    expect(printed("--version")).toEqual({ text: version, code: 0 });
    expect(printed("-V")).toEqual({ text: version, code: 0 });
  });
});

/** A mistake: exit 2, one line naming it, then that command's usage (not the whole help). */
function expectMistake(argv: string[], line: string, usage: string | RegExp) {
  const out = printed(...argv);
  expect(out.code).toBe(2);
  const lines = out.text.split("\n");
  expect(lines[0]).toBe(line);
  if (typeof usage === "string") expect(lines[1]).toBe(usage);
  else expect(lines[1]).toMatch(usage);
  expect(lines.length).toBeLessThanOrEqual(8);
  expect(out.text).not.toContain("Options:");
}

describe("mistakes", () => {
  it("an unknown option, with what it may have meant", () => {
    expectMistake(
      ["account", "create", "bob", "--credit", "5"],
      "blockgate account create: unknown option --credit (did you mean --credits?)",
      "usage: blockgate account create <name> [--credits N]",
    );
    expectMistake(
      ["usage", "demo", "--bogus"],
      "blockgate usage: unknown option --bogus",
      "usage: blockgate usage <account> [--limit N]",
    );
    expectMistake(
      ["token", "issue", "acme", "--grace", "1h"],
      "blockgate token issue: unknown option --grace",
      /^usage: blockgate token issue <account> /,
    );
  });

  it("a missing or an extra word, an option without its value", () => {
    const usage = "usage: blockgate credits grant <account> <CC> [--memo M]";
    expectMistake(
      ["credits", "grant", "acme"],
      "blockgate credits grant: missing argument <CC>",
      usage,
    );
    expectMistake(
      ["credits", "grant", "acme", "5", "6"],
      'blockgate credits grant: unexpected argument "6"',
      usage,
    );
    expectMistake(
      ["credits", "grant", "acme", "5", "--memo"],
      "blockgate credits grant: --memo needs a value",
      usage,
    );
  });

  it("a bad value: -5 credits, 0, a word for a number, a choice that is not one", () => {
    const grant = "usage: blockgate credits grant <account> <CC> [--memo M]";
    for (const amount of ["-5", "0", "five", "1.5", "99999999999999999999"]) {
      expectMistake(
        ["credits", "grant", "acme", amount],
        `blockgate credits grant: amount: a positive whole number of CC (got "${amount}")`,
        grant,
      );
    }
    expectMistake(
      ["account", "create", "bob", "--credits", "-5"],
      'blockgate account create: --credits: a positive whole number of CC (got "-5")',
      "usage: blockgate account create <name> [--credits N]",
    );
    expectMistake(
      ["export", "acme", "--kind", "csv"],
      'blockgate export: --kind: one of audit, usage (got "csv")',
      "usage: blockgate export <account> [--cycle N] [--kind audit|usage]",
    );
    expectMistake(
      ["token", "revoke", "nope"],
      'blockgate token revoke: token: a token id or the token itself (bgt_…) (got "nope")',
      "usage: blockgate token revoke <token-id | token>",
    );
  });

  it("an unknown command, with what it may have meant; a group without its command", () => {
    expectMistake(
      ["acount", "list"],
      'blockgate: unknown command "acount" (did you mean account?)',
      "usage: blockgate <command> [options]",
    );
    expectMistake(
      ["token", "isue", "acme"],
      'blockgate token: unknown command "isue" (did you mean issue?)',
      "usage: blockgate token issue <account> [options]",
    );
    expectMistake(
      ["webhook"],
      "blockgate webhook: name a command: add, list, attempts, rm",
      "usage: blockgate webhook add <token-id> <url> [options]",
    );
  });

  it("blockgate alone: the overview, exit 2", () => {
    const out = printed();
    expect(out.code).toBe(2);
    expect(out.text).toBe(printed("--help").text);
  });
});

describe("mistakes from the command line, without a gateway", () => {
  it("exit 2 with the usage on stderr, and no store opened (its folder is not even made)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "bg-cli-"));
    const configFile = join(dir, "blockgate.yaml");
    writeFileSync(configFile, `database:\n  pgliteDir: ${join(dir, "db")}\n`);
    const env = { BLOCKGATE_CONFIG: configFile, DATABASE_URL: "" };
    // What a process prints for a command's own mistakes (--credit, -5) is shown beside a
    // gateway's hand-off file in test/cli/handoff.test.ts; the same lines are parsed alike here.
    const [none, help, version] = await Promise.all([
      blockgate([], env),
      blockgate(["usage", "--help"], env),
      blockgate(["--version"], env),
    ]);
    expect(none).toMatchObject({ code: 2, stdout: "" });
    expect(none.stderr).toContain("usage: blockgate <command> [options]");
    expect(help).toMatchObject({ code: 0, stderr: "" });
    expect(help.stdout).toMatch(/^Usage: blockgate usage <account> \[--limit N\]\n/);
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    expect(existsSync(join(dir, "db"))).toBe(false);
  }, 60_000);
});
