import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig, parseConfig } from "../../src/config/load.ts";
import { verifies } from "../../src/verify/chain/verified-chain-set.ts";
import { configProblems } from "../support/config.ts";

const problems = configProblems;

describe("config", () => {
  it("no file means devnet defaults", () => {
    const config = loadConfig(undefined);
    expect(config.networks).toEqual(["mainnet", "testnet", "testnet4", "signet", "regtest"]);
    expect(config.upstreams.node?.mainnet).toEqual(["devnet"]);
    expect(config.backends).toEqual({
      gateway: "gateway",
      node: "node",
      electrum: "electrum",
      graph: "graph",
      esplora: "esplora",
    });
    expect(config.pricing.getrawtransaction).toEqual({ default: 100, mainnet: 200 });
    // An ended indexer trip answers identical planned queries for as long as it took, ≤ 10 ms.
    expect(config.graphql.sharedAfterTripMs).toBe(10);
    expect(config.verification).toEqual({
      enabled: true,
      pollMs: 1_000,
      lagBlocksMax: 3,
      batchHeadersMax: 2_000,
      networks: {},
    });
    // Every network's chain is verified, save mainnet's until a checkpoint is named.
    expect(config.networks.filter((n) => verifies(config.verification, n))).toEqual([
      "testnet",
      "testnet4",
      "signet",
      "regtest",
    ]);
    const checkpoint = { height: 1, hash: "0".repeat(64), chainwork: "1" };
    const named = parseConfig({ verification: { networks: { mainnet: { checkpoint } } } });
    expect(verifies(named.verification, "mainnet")).toBe(true);
    const off = parseConfig({ verification: { networks: { regtest: { enabled: false } } } });
    expect(verifies(off.verification, "regtest")).toBe(false);
    expect(
      problems({ verification: { networks: { mainnet: { checkpoint: { height: 1 } } } } }),
    ).toContain("verification.networks.mainnet.checkpoint.hash is required");
  });

  it("unknown keys are rejected with their path", () => {
    expect(problems({ server: { prot: 1 } })).toEqual(["server.prot is not a known key"]);
    expect(problems({ bogus: true })).toEqual(["bogus is not a known key"]);
  });

  it("every error names its path", () => {
    expect(problems({ upstreams: { node: { mainnet: [{ user: "u" }] } } })).toContain(
      "upstreams.node.mainnet[0].url is required",
    );
    expect(problems({ server: { port: 70000 } })[0]).toMatch(/^server\.port: /);
    expect(problems({ pricing: { getrawtransaction: { default: 1, mainnett: 2 } } })[0]).toMatch(
      /^pricing\.getrawtransaction\.mainnett: unknown network/,
    );
  });

  it("cross-checks: every network has a node or Electrum servers", () => {
    expect(
      problems({
        networks: ["mainnet"],
        upstreams: { node: { regtest: ["devnet"] }, electrum: { regtest: ["devnet"] } },
      }),
    ).toEqual([
      "upstreams.node.regtest names a network not in networks",
      "upstreams.electrum.regtest names a network not in networks",
      "upstreams.node.mainnet or upstreams.electrum.mainnet is required",
    ]);
    // Electrum alone will do: its chain is followed through the servers' headers.
    expect(
      problems({
        networks: ["mainnet"],
        upstreams: { node: { regtest: ["devnet"] }, electrum: { mainnet: ["devnet"] } },
      }),
    ).toEqual(["upstreams.node.regtest names a network not in networks"]);
  });

  it("refuses a hold and lease TTL shorter than the longest upstream timeout", () => {
    expect(
      problems({
        networks: ["mainnet"],
        upstreams: {
          node: { mainnet: [{ url: "http://127.0.0.1:8332", timeoutMs: 90_000 }] },
        },
        ledger: { holdTimeoutMs: 60_000 },
      }),
    ).toEqual([
      "ledger.holdTimeoutMs (60000) must be at least the longest upstream timeout, upstreams.node.mainnet[0].timeoutMs (90000)",
    ]);
    expect(problems({ ledger: { holdTimeoutMs: 15_000 } })).toEqual([]);
  });

  it("reads YAML files, and says which file is broken", () => {
    const dir = mkdtempSync(join(tmpdir(), "bg-"));
    const good = join(dir, "good.yaml");
    writeFileSync(
      good,
      "server:\n  port: 9000\nnetworks: [mainnet]\nupstreams:\n  node:\n    mainnet:\n      - url: http://127.0.0.1:8332\n        cookieFile: /tmp/.cookie\n",
    );
    const config = loadConfig(good);
    expect(config.server.port).toBe(9000);
    expect(config.upstreams.node?.mainnet?.[0]).toMatchObject({
      url: "http://127.0.0.1:8332",
      timeoutMs: 10_000,
    });
    const bad = join(dir, "bad.yaml");
    writeFileSync(bad, "server: [");
    expect(() => loadConfig(bad)).toThrow(/bad\.yaml is not valid YAML/);
    expect(() => loadConfig(join(dir, "missing.yaml"))).toThrow(/cannot read/);
  });

  it("Electrum upstreams: devnet for every configured network by default, URLs checked", () => {
    const config = parseConfig({
      networks: ["mainnet"],
      upstreams: { node: { mainnet: ["devnet"] } },
    });
    expect(config.upstreams.electrum).toEqual({ mainnet: ["devnet"] });
    expect(config.pricing["blockchain.transaction.get"]).toEqual({ default: 50, mainnet: 100 });
    expect(config.cache).toEqual({
      bytesMax: 64 * 1024 * 1024,
      blockBytesMax: 16 * 1024 * 1024,
      gatewayBytesMax: 16 * 1024 * 1024,
      esploraBytesMax: 16 * 1024 * 1024,
      decodedBytesMax: 16 * 1024 * 1024,
      minConfirmations: 6,
      tipTtlMs: 1000,
      redis: { keyPrefix: "blockgate:cache:", timeoutMs: 50, ttlMs: 7 * 86_400_000 },
    });
    const tls = parseConfig({
      upstreams: { electrum: { mainnet: [{ url: "ssl://10.0.0.7:50002" }] } },
    });
    expect(tls.upstreams.electrum?.mainnet?.[0]).toMatchObject({
      url: "ssl://10.0.0.7:50002",
      connections: 2,
      timeoutMs: 10_000,
      tlsVerify: true,
    });
    expect(problems({ upstreams: { electrum: { mainnet: [{ url: "http://x:1" }] } } })).toEqual([
      "upstreams.electrum.mainnet[0].url: expected tcp://, ssl:// or tls://host:port",
    ]);
    expect(
      problems({
        networks: ["mainnet"],
        upstreams: { node: { mainnet: ["devnet"] }, electrum: { regtest: ["devnet"] } },
      }),
    ).toEqual(["upstreams.electrum.regtest names a network not in networks"]);
  });
});

describe("serving fewer networks", () => {
  it("upstreams left out default to devnet for exactly the networks served", () => {
    const config = parseConfig({ networks: ["mainnet", "regtest"] });
    for (const kind of ["node", "electrum", "graph"] as const) {
      expect(config.upstreams[kind]).toEqual({ mainnet: ["devnet"], regtest: ["devnet"] });
    }
  });
});

describe("billing.topups", () => {
  const descriptor =
    "wpkh(tpubD6NzVbkrYhZ4XgiXtGrdW5XDAPFCL9h7we1vwNCpn8tGbBcgfVYjXyhWo4E1xkh56hjod1RhGjxbaTLV3X4FyWuejifB9jusQ46QzG87VKp/0/*)";

  it("is off by default, and given, takes its defaults", () => {
    expect(loadConfig(undefined).billing.topups).toBeUndefined();
    const topups = parseConfig({ billing: { topups: { descriptor, satsPer1000Credits: 50 } } })
      .billing.topups;
    expect(topups).toEqual({
      network: "mainnet",
      descriptor,
      satsPer1000Credits: 50,
      packages: [],
      minimumSats: 10_000,
      invoiceTtlMinutes: 60,
      confirmations: { mainnet: 3 },
      lateWatchMinutes: 10_080,
      sweepMs: 30_000,
      openPerAccountMax: 20,
    });
  });

  it("needs a price and a served network", () => {
    expect(problems({ billing: { topups: { descriptor } } })).toEqual([
      "billing.topups: satsPer1000Credits or packages is required (the price)",
    ]);
    expect(
      problems({
        networks: ["regtest"],
        billing: { topups: { descriptor, network: "mainnet", satsPer1000Credits: 1 } },
      }),
    ).toEqual(["billing.topups.network: mainnet is not in networks"]);
    expect(problems({ billing: { topups: { satsPer1000Credits: 1 } } })).toEqual([
      "billing.topups.descriptor is required",
    ]);
  });
});
