import { readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.ts";
import { adminFilePath } from "../../src/routes/admin/admin-file.ts";
import { adminCli, type OperatorGateway, startOperatorGateway } from "../support/operator.ts";
import { blockgate, blockgateOnTerminal } from "../support/spawn.ts";

/**
 * The CLI beside a gateway that holds the PGlite store: mistakes are answered by the CLI before it
 * asks the gateway, and when the gateway does not run a command the CLI says what failed.
 */
let g: OperatorGateway;
let file: string;
let handoff: string;
beforeAll(async () => {
  g = await startOperatorGateway();
  file = adminFilePath(loadConfig(g.env.BLOCKGATE_CONFIG));
  handoff = readFileSync(file, "utf8");
});
afterAll(() => g.close());

/** Rewrites the hand-off file for one test (the gateway keeps running as it was). */
async function withHandoff(change: Record<string, unknown>, body: () => Promise<void>) {
  writeFileSync(file, JSON.stringify({ ...JSON.parse(handoff), ...change }), { mode: 0o600 });
  try {
    await body();
  } finally {
    writeFileSync(file, handoff, { mode: 0o600 });
  }
}

/** A local port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A command line with a mistake, the line that names it and the usage printed after it. */
const MISTAKES: [string[], string, string][] = [
  [
    ["account", "create", "bob", "--credit", "5"],
    "blockgate account create: unknown option --credit (did you mean --credits?)",
    "usage: blockgate account create <name> [--credits N]",
  ],
  [
    ["credits", "grant", "alice", "-5"],
    'blockgate credits grant: amount: a positive whole number of CC (got "-5")',
    "usage: blockgate credits grant <account> <CC> [--memo M]",
  ],
  [
    ["usage", "demo", "--bogus"],
    "blockgate usage: unknown option --bogus",
    "usage: blockgate usage <account> [--limit N]",
  ],
];

describe("the CLI beside a running gateway", () => {
  it("answers argument mistakes itself, never asking the gateway: with its address dead, one line, that command's usage, exit 2, nothing written", async () => {
    // The file names a live process (this one) at a port nothing listens on: any request would
    // fail and be reported (exit 1); a mistake never gets that far.
    await withHandoff(
      { url: `http://127.0.0.1:${await closedPort()}`, pid: process.pid },
      async () => {
        for (const [argv, line, usage] of MISTAKES) {
          const out = await blockgate(argv, g.env);
          expect(out.code).toBe(2);
          const words = argv[0] === "usage" ? "usage" : argv.slice(0, 2).join(" ");
          expect(out.stderr).toBe(
            `${line}\n${usage}\n(blockgate ${words} --help for its options and an example)\n`,
          );
          expect(out.stdout).toBe("");
        }
        const asked = await blockgate(["account", "list"], g.env);
        expect(asked.code).toBe(1);
        expect(asked.stderr).toMatch(
          new RegExp(
            `^the gateway \\(pid ${process.pid}\\) holds the PGlite store, and http://127\\.0\\.0\\.1:\\d+ does not answer: connect ECONNREFUSED`,
          ),
        );
      },
    );
    const listed = await adminCli(g.url, ["account", "list"], g.operator.headers);
    expect(listed.text).not.toContain("bob");
  }, 60_000);

  it("reports what the gateway answered when it does not run the command: its status and error", async () => {
    await withHandoff({ secret: "0".repeat(64) }, async () => {
      const out = await blockgate(["account", "list"], g.env);
      expect(out.code).toBe(1);
      expect(out.stderr).toBe(
        `the gateway at ${g.url} (pid ${process.pid}) did not run the command: HTTP 401, UNAUTHENTICATED: operator credential required\n`,
      );
    });
  }, 60_000);

  it("runs a well-formed command in the gateway and prints its answer", async () => {
    const out = await blockgate(["account", "create", "handed", "--credits", "5", "--json"], g.env);
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout)).toEqual({ id: expect.any(Number), name: "handed", balance: 5 });
  }, 60_000);

  it("on a terminal, the gateway's answer is a table with headers, in colour unless NO_COLOR", async () => {
    const ESC = "\u001b";
    // FORCE_COLOR from the run's own environment would decide for the CLI (and Node warns).
    const env = { ...g.env, TERM: "xterm", NO_COLOR: "", FORCE_COLOR: undefined };
    // script(1) gives the CLI a terminal and merges its output, with CRLF line ends.
    const screen = async (extra: Record<string, string>) => {
      const out = await blockgateOnTerminal(["account", "list"], { ...env, ...extra });
      expect(out.code).toBe(0);
      return out.stdout.replaceAll("\r\n", "\n");
    };
    const coloured = await screen({});
    expect(coloured).toMatch(
      new RegExp(`^${ESC}\\[1mid {2}name +balance CC {2}held CC {2}plan${ESC}\\[22m\n`),
    );
    expect(coloured).toMatch(/\n +\d+ {2}handed +5 +0 {2}default\n/);
    const plain = await screen({ NO_COLOR: "1" });
    expect(plain).toMatch(/^id {2}name +balance CC {2}held CC {2}plan\n/);
    expect(plain).not.toContain(ESC);
    const piped = await blockgate(["account", "list"], env);
    expect(piped.stdout).toMatch(/^\d+\thanded\tbalance 5 CC\theld 0 CC\tplan default$/m);
    expect(piped.stdout).not.toContain(ESC);
  }, 60_000);
});
