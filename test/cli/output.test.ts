import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runDbCommand } from "../../src/cli/commands.ts";
import type { CommandOutput } from "../../src/cli/db-command.ts";
import { printable, renderView, wantsColour } from "../../src/cli/view.ts";
import { parseConfig } from "../../src/config/load.ts";
import type { Config } from "../../src/config/schema.ts";
import type { Database } from "../../src/db/database.ts";
import { insertAuditRecords } from "../support/audit.ts";
import { memoryStore } from "../support/harness.ts";

/**
 * What the commands print: tab-separated text for pipes (as scripts read it), tables with headers
 * and aligned columns for a terminal, JSON with --json.
 */
let db: Database;
let config: Config;
beforeAll(async () => {
  db = await memoryStore();
  config = parseConfig({
    networks: ["regtest"],
    webhooks: { allowTargets: ["127.0.0.1/32"] },
  });
  await run("account", "create", "acme", "--credits", "1000");
  await run("token", "issue", "acme", "--label", "\u001b[2Jwiped", "--networks", "regtest");
  await run("webhook", "add", "1", "http://127.0.0.1:9/hook", "--network", "regtest");
});
afterAll(() => db.close());

const run = (...argv: string[]) => runDbCommand(db, argv, config);
const ESC = "\u001b";

/** The command's table as a terminal shows it, without colours. */
async function table(...argv: string[]): Promise<string[]> {
  const out = await run(...argv);
  expect(out.code).toBe(0);
  expect(out.view).toBeDefined();
  return renderView(out.view!, false).split("\n");
}

/** Each header's column starts where the same column starts in every row. */
function expectAligned(lines: string[], headers: string[]) {
  const at = headers.map((h) => lines[0]!.indexOf(h));
  expect(at.every((i, n) => i >= 0 && (n === 0 || i > at[n - 1]!))).toBe(true);
  for (const line of lines.slice(1)) {
    for (const i of at.slice(1)) expect(line[i - 1], `${line}`).toBe(" ");
  }
}

describe("tables on a terminal", () => {
  it("account list, token list, webhook list: a header, then aligned rows", async () => {
    const accounts = await table("account", "list");
    expect(accounts[0]).toBe("id  name  balance CC  held CC  plan");
    expect(accounts[1]).toBe(" 1  acme        1000        0  default");

    const tokens = await table("token", "list", "acme");
    expectAligned(tokens, ["id", "hint", "label", "issued", "state", "scope"]);
    expect(tokens[1]).toMatch(
      /^ 1 {2}bgt_….{4} {2}\\x1b\[2Jwiped {2}\d{4}-\d\d-\d\dT[\d:]{8}Z {2}live {3}networks=regtest$/,
    );

    const hooks = await table("webhook", "list", "acme");
    expectAligned(hooks, ["id", "state", "event", "network", "url", "token"]);
    expect(hooks[1]).toMatch(
      /^ 1 {2}live {3}newBlock {2}regtest {2}http:\/\/127\.0\.0\.1:9\/hook {6}1$/,
    );
    expect(await table("webhook", "attempts", "1")).toEqual(["no attempts"]);
  });

  it("usage: the balance, then by method, by network and the latest calls, each with headers", async () => {
    // Two calls refused before they ran (nothing charged, so the ledger stays whole).
    await insertAuditRecords(db, [
      {
        request_id: "r1",
        account_id: 1,
        backend: "node",
        network: "regtest",
        method: "getblockcount",
        outcome: "rate_limited",
        error_code: "RATE_LIMITED",
        http_status: 429,
      },
      {
        request_id: "r2",
        account_id: 1,
        backend: "electrum",
        network: "regtest",
        method: "server.version",
        outcome: "rejected",
        error_code: "BAD_REQUEST",
        http_status: 400,
      },
    ]);
    const lines = await table("usage", "acme");
    expect(lines[0]).toBe("account acme (id 1): balance 1000 CC, held 0 CC, available 1000 CC");
    const at = (title: string) => lines.indexOf(title);
    expect(lines[at("by method:") + 1]).toBe(
      "backend   network  method          calls  charged CC",
    );
    expect(lines[at("by method:") + 2]).toBe(
      "electrum  regtest  server.version      1           0",
    );
    expect(lines[at("by network:") + 1]).toBe("backend   network  calls  charged CC");
    expectAligned(lines.slice(at("latest 2 calls:") + 1), [
      "at",
      "backend",
      "network",
      "method",
      "outcome",
      "charged CC",
    ]);
  });

  it("ledger check: a row per account, ok or BAD", async () => {
    expect(await table("ledger", "check")).toEqual([
      "check  account  granted  charged  balance  held  audit charged",
      "ok           1     1000        0     1000     0              0",
    ]);
  });

  it("colours only when asked, and never from what a cell holds", async () => {
    const out = await run("token", "list", "acme");
    expect(renderView(out.view!, true)).toContain(`${ESC}[1m`);
    expect(renderView(out.view!, false)).not.toContain(ESC);
    // The label's escape sequence is shown, not sent to the terminal.
    expect(renderView(out.view!, true)).not.toContain(`${ESC}[2J`);
  });

  it("colour needs a terminal, NO_COLOR unset or empty, and a TERM other than dumb", () => {
    const tty = { isTTY: true };
    expect(wantsColour(tty, {})).toBe(true);
    expect(wantsColour(tty, { NO_COLOR: "" })).toBe(true);
    expect(wantsColour(tty, { NO_COLOR: "1" })).toBe(false);
    expect(wantsColour(tty, { TERM: "dumb" })).toBe(false);
    expect(wantsColour({ isTTY: false }, {})).toBe(false);
    expect(wantsColour({}, {})).toBe(false);
  });
});

describe("text for pipes and --json", () => {
  it("the text stays tab-separated, without colours; control characters are printed visibly", async () => {
    const accounts = await run("account", "list");
    expect(accounts.text).toBe("1\tacme\tbalance 1000 CC\theld 0 CC\tplan default");
    for (const argv of [
      ["usage", "acme"],
      ["webhook", "list", "acme"],
      ["ledger", "check"],
    ]) {
      expect((await run(...argv)).text).not.toContain(ESC);
    }
    const tokens = printable((await run("token", "list", "acme")).text);
    expect(tokens).toMatch(/^1\tbgt_….{4}\t\\x1b\[2Jwiped\tissued /);
    expect(printable("a\tb\r\nc\u0007")).toBe("a\tb\r\nc\\x07");
  });

  it("every data command takes --json and prints JSON with stable keys, and no view", async () => {
    const json = async (...argv: string[]) => {
      const out: CommandOutput = await run(...argv, "--json");
      expect(out.view).toBeUndefined();
      return JSON.parse(out.text) as unknown;
    };
    expect(await json("account", "list")).toEqual([
      { id: 1, name: "acme", balance: 1000, held: 0, plan: "default" },
    ]);
    expect(await json("account", "create", "beta", "--credits", "5")).toEqual({
      id: 2,
      name: "beta",
      balance: 5,
    });
    expect(await json("credits", "grant", "beta", "7")).toEqual({
      account: { id: 2, name: "beta" },
      granted: 7,
      balance: 12,
    });
    expect(await json("token", "list", "acme")).toEqual([
      expect.objectContaining({ id: 1, state: "live", scope: { networks: ["regtest"] } }),
    ]);
    const usage = (await json("usage", "acme")) as Record<string, unknown>;
    expect(Object.keys(usage)).toEqual(["account", "byMethod", "byNetwork", "latest"]);
    expect(await json("webhook", "list", "acme")).toEqual([
      expect.objectContaining({ id: 1, state: "live", event: "newBlock", tokenId: 1 }),
    ]);
    expect(await json("webhook", "attempts", "1")).toEqual([]);
    expect(await json("ledger", "check")).toEqual([
      expect.objectContaining({ accountId: 1, ok: true }),
      expect.objectContaining({ accountId: 2, ok: true }),
    ]);
    const issued = (await json("token", "issue", "beta")) as { token: string };
    expect(issued.token).toMatch(/^bgt_/);
  });
});
