import { describe, expect, it } from "vitest";
import { resolveGraphUpstreams } from "../../src/app/upstreams.ts";
import { ConfigError, parseConfig } from "../../src/config/load.ts";

function problems(input: unknown): string[] {
  try {
    parseConfig(input);
    return [];
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
}

describe("graph config", () => {
  it("defaults to devnet's indexer for every network and documented weights and limits", () => {
    const config = parseConfig({
      networks: ["mainnet", "regtest"],
      upstreams: { node: { mainnet: ["devnet"], regtest: ["devnet"] } },
    });
    expect(config.upstreams.graph).toEqual({ mainnet: ["devnet"], regtest: ["devnet"] });
    expect(config.graph).toEqual({
      weights: { default: 1, "query_root.block": 2, "block.transactions": 2 },
      listSizeDefault: 100,
      pageSizeMax: 1000,
      depthMax: 5,
      aliasesMax: 10,
      tokensMax: 10_000,
      complexityMax: 10_000_000,
      queryTimeoutMs: 15_000,
    });
    expect(config.pricing.graph).toEqual({
      base: { default: 150, mainnet: 300 },
      perPoint: { default: 0.5, mainnet: 1 },
    });
  });

  it("names the path of every problem", () => {
    expect(
      problems({
        networks: ["mainnet"],
        upstreams: {
          node: { mainnet: ["devnet"] },
          graph: { mainnet: [{ adminSecretEnv: "X" }], regtest: ["devnet"] },
        },
      }),
    ).toEqual(["upstreams.graph.mainnet[0].url is required"]);
    expect(
      problems({
        networks: ["mainnet"],
        upstreams: { node: { mainnet: ["devnet"] }, graph: { regtest: ["devnet"] } },
      }),
    ).toEqual(["upstreams.graph.regtest names a network not in networks"]);
    expect(problems({ graph: { weights: { default: 1, hash: 2 } } })).toEqual([
      "graph.weights.hash: expected <type>.<field>",
    ]);
    expect(problems({ graph: { listSizeDefault: 500, pageSizeMax: 100 } })).toEqual([
      "graph.listSizeDefault must not exceed graph.pageSizeMax",
    ]);
    expect(problems({ pricing: { graph: { perPoint: { default: 1, moon: 2 } } } })).toEqual([
      'pricing.graph.perPoint.moon: unknown network "moon"',
    ]);
  });

  it("reads the admin secret from the environment, and says which variable is missing", () => {
    const config = parseConfig({
      networks: ["mainnet"],
      upstreams: {
        node: { mainnet: ["devnet"] },
        graph: {
          mainnet: [{ url: "http://10.0.0.7:8080/v1/graphql", adminSecretEnv: "INDEXER_SECRET" }],
        },
      },
    });
    expect(resolveGraphUpstreams(config, null, { INDEXER_SECRET: "s3cret" })).toEqual({
      mainnet: [
        {
          url: "http://10.0.0.7:8080/v1/graphql",
          adminSecret: "s3cret",
          timeoutMs: 10_000,
          connections: 16,
        },
      ],
    });
    expect(() => resolveGraphUpstreams(config, null, {})).toThrow(
      "upstreams.graph.mainnet[0].adminSecretEnv: INDEXER_SECRET is not set",
    );
  });
});
