import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { parseConfig } from "../../src/config/load.ts";
import { blockgate } from "../support/spawn.ts";

// Neither a config file nor a database exists: the command must need neither.
const env = {
  BLOCKGATE_CONFIG: "/nonexistent/blockgate.yaml",
  DATABASE_URL: "postgres://nobody@127.0.0.1:1/none",
};

describe("blockgate operator-token", () => {
  it("prints a fresh bgo_ token and the config line with its SHA-256, touching nothing", async () => {
    const [a, b] = await Promise.all([
      blockgate(["operator-token"], env),
      blockgate(["operator-token"], env),
    ]);
    for (const out of [a, b]) {
      expect(out.code).toBe(0);
      const token = out.stdout.match(/^bgo_[A-Za-z0-9_-]{43}$/m)?.[0];
      expect(token).toBeDefined();
      const line = out.stdout.match(/^operator: \{ tokenSha256: \["([0-9a-f]{64})"\] \}$/m);
      expect(line?.[1]).toBe(createHash("sha256").update(token!).digest("hex"));
      // The line, pasted into a config file as printed, is valid config.
      expect(parseConfig(parseYaml(line![0])).operator.tokenSha256).toEqual([line![1]]);
    }
    expect(a.stdout).not.toBe(b.stdout);
  }, 60_000);

  it("takes no arguments", async () => {
    const out = await blockgate(["operator-token", "extra"], env);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain("usage: blockgate operator-token");
  }, 60_000);
});
