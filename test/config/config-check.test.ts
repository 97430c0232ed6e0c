import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runConfigCommand } from "../../src/cli/config-check.ts";
import { blockgate } from "../support/spawn.ts";

const dir = mkdtempSync(join(tmpdir(), "bg-config-check-"));
const cookie = join(dir, ".cookie");
const ca = join(dir, "electrumx.pem");
writeFileSync(cookie, "__cookie__:secret\n");
writeFileSync(ca, "-----BEGIN CERTIFICATE-----\n");

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const GOOD = `
networks: [mainnet, regtest]
database: { pgliteDir: ${join(dir, "never-created")} }
upstreams:
  node:
    mainnet:
      - { url: "http://10.0.0.5:8332", cookieFile: ${cookie} }
      - { url: "http://10.0.0.6:8332", user: gw, passwordEnv: BG_TEST_CORE_PASSWORD }
    regtest: [devnet]
  electrum:
    mainnet:
      - { url: "ssl://10.0.0.7:50002", caFile: ${ca} }
      - { url: "tcp://10.0.0.8:50001" }
      - devnet
    regtest: [devnet]
  graph:
    mainnet:
      - { url: "https://hasura.internal/v1/graphql", adminSecretEnv: BG_TEST_HASURA_SECRET }
`;

const ENV = { BG_TEST_CORE_PASSWORD: "p", BG_TEST_HASURA_SECRET: "s" };

describe("blockgate config check", () => {
  it("valid: exit 0 and what would be served, per backend and network", () => {
    const path = file("good.yaml", GOOD);
    expect(runConfigCommand(["check", path], ENV)).toEqual({
      code: 0,
      text: [
        `${path}: valid`,
        "networks: mainnet, regtest",
        `store: PGlite in ${join(dir, "never-created")} (DATABASE_URL is not set)`,
        "upstreams:",
        "  node      mainnet  2 upstreams             /node/mainnet",
        "  node      regtest  1 upstream (devnet)     /node/regtest",
        "  electrum  mainnet  3 upstreams (1 devnet)  /electrum/mainnet",
        "  electrum  regtest  1 upstream (devnet)     /electrum/regtest",
        "  graph     mainnet  1 upstream              /graph/mainnet",
        "  graph     regtest  none (no such route)    /graph/regtest",
        "  esplora   mainnet  1 upstream (devnet)     /esplora/mainnet",
        "  esplora   regtest  1 upstream (devnet)     /esplora/regtest",
      ].join("\n"),
    });
    const postgres = runConfigCommand(["check", path], { ...ENV, DATABASE_URL: "postgres://x" });
    expect(postgres.text).toContain("\nstore: PostgreSQL via DATABASE_URL\n");
  });

  it("JSON is YAML: a .json file is checked the same way", () => {
    const path = file(
      "good.json",
      JSON.stringify({ networks: ["regtest"], server: { port: 9000 } }, null, 2),
    );
    const out = runConfigCommand(["check", path], {});
    expect(out.code).toBe(0);
    expect(out.text).toContain("networks: regtest");
  });

  it("invalid: every error on its own line with its path, exit 1", () => {
    const path = file(
      "bad.yaml",
      `
server: { port: 70000, prot: 1 }
networks: [mainnet]
upstreams:
  node:
    mainnet:
      - { user: gw }
      - { url: "ftp://10.0.0.6:8332" }
  electrum:
    mainnet: [{ url: "http://10.0.0.7:50001" }]
pricing: { getrawtransaction: { default: 1, mainnett: 2 } }
`,
    );
    expect(runConfigCommand(["check", path], {})).toEqual({
      code: 1,
      text: [
        `${path}: invalid (6 errors)`,
        "error: server.port: Too big: expected number to be <=65535",
        "error: server.prot is not a known key",
        "error: upstreams.node.mainnet[0].url is required",
        "error: upstreams.node.mainnet[1].url: Invalid URL",
        "error: upstreams.electrum.mainnet[0].url: expected tcp://, ssl:// or tls://host:port",
        'error: pricing.getrawtransaction.mainnett: unknown network "mainnett"',
      ].join("\n"),
    });
  });

  it("an unset secret variable is a warning; a missing cookie or CA file is an error", () => {
    const noEnv = runConfigCommand(["check", file("good.yaml", GOOD)], {});
    expect(noEnv.code).toBe(0);
    expect(noEnv.text.split("\n").filter((l) => l.startsWith("warning:"))).toEqual([
      "warning: upstreams.node.mainnet[1].passwordEnv: BG_TEST_CORE_PASSWORD is not set (the gateway will not start without it)",
      "warning: upstreams.graph.mainnet[0].adminSecretEnv: BG_TEST_HASURA_SECRET is not set (the gateway will not start without it)",
    ]);

    const caDir = join(dir, "ca-dir");
    mkdirSync(caDir, { recursive: true });
    const missing = file(
      "missing.yaml",
      GOOD.replace(cookie, join(dir, "no-such.cookie")).replace(ca, caDir),
    );
    expect(runConfigCommand(["check", missing], ENV)).toEqual({
      code: 1,
      text: [
        `${missing}: invalid (2 errors)`,
        `error: upstreams.node.mainnet[0].cookieFile: ${join(dir, "no-such.cookie")} does not exist`,
        `error: upstreams.electrum.mainnet[0].caFile: ${caDir} is not a file`,
      ].join("\n"),
    });
  });

  it("reports schema errors and file errors together", () => {
    const path = file(
      "both.yaml",
      `upstreams:\n  node:\n    mainnet:\n      - { cookieFile: ${join(dir, "gone")}, passwordEnv: BG_TEST_UNSET }\n`,
    );
    expect(runConfigCommand(["check", path], {}).text.split("\n")).toEqual([
      `${path}: invalid (2 errors, 1 warning)`,
      "error: upstreams.node.mainnet[0].url is required",
      `error: upstreams.node.mainnet[0].cookieFile: ${join(dir, "gone")} does not exist`,
      "warning: upstreams.node.mainnet[0].passwordEnv: BG_TEST_UNSET is not set (the gateway will not start without it)",
    ]);
  });

  it("the Electrum TLS listener's certificate and key must exist", () => {
    const path = file(
      "tls.yaml",
      `electrum:\n  tls: { certFile: ${join(dir, "no.pem")}, keyFile: ${join(dir, "no.key")}, serverNameSuffix: electrum.example.com }\n`,
    );
    expect(runConfigCommand(["check", path], {}).text.split("\n")).toEqual([
      `${path}: invalid (2 errors)`,
      `error: electrum.tls.certFile: ${join(dir, "no.pem")} does not exist`,
      `error: electrum.tls.keyFile: ${join(dir, "no.key")} does not exist`,
    ]);
  });

  it("unreadable or unparsable files, and usage", () => {
    expect(runConfigCommand(["check", join(dir, "absent.yaml")], {}).text).toMatch(
      /^.*absent\.yaml: invalid \(1 error\)\nerror: cannot read .*absent\.yaml: ENOENT/,
    );
    expect(runConfigCommand(["check", file("broken.yaml", "server: [")], {}).text).toMatch(
      /\nerror: .*broken\.yaml is not valid YAML/,
    );
    expect(runConfigCommand(["check", file("list.yaml", "- 1\n")], {}).text).toContain(
      "error: (root): expected a mapping",
    );
    expect(runConfigCommand(["check"], {}).code).toBe(2);
    expect(runConfigCommand(["frob", "x"], {}).code).toBe(2);
    // FILE defaults to BLOCKGATE_CONFIG, as the gateway reads it.
    expect(
      runConfigCommand(["check"], { ...ENV, BLOCKGATE_CONFIG: file("good.yaml", GOOD) }).code,
    ).toBe(0);
  });

  it("runs as a command without opening the database or reaching any upstream", async () => {
    const path = file("good.yaml", GOOD);
    // An unreachable PostgreSQL and upstreams on private addresses: any attempt to use them would
    // fail or hang; the PGlite folder would be created by opening it.
    const out = await blockgate(["config", "check", path], {
      ...ENV,
      DATABASE_URL: "postgres://nobody@127.0.0.1:1/none",
    });
    expect(out.stderr).toBe("");
    expect(out.code).toBe(0);
    expect(out.stdout).toContain("store: PostgreSQL via DATABASE_URL");
    const bad = await blockgate(["config", "check", file("bad2.yaml", "server: { port: -1 }\n")], {
      DATABASE_URL: "",
    });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^.*bad2\.yaml: invalid \(1 error\)\nerror: server\.port: /);
    expect(existsSync(join(dir, "never-created"))).toBe(false);
  });
});
