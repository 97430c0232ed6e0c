import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HAL_TXID } from "../support/harness.ts";
import { blockgate, startProcess, stopProcess } from "../support/spawn.ts";

describe("npm start", () => {
  it("starts devnet and the gateway, prints a curl that works, and the charge shows in `blockgate usage`", async () => {
    const dir = mkdtempSync(join(tmpdir(), "bg-start-"));
    const configFile = join(dir, "blockgate.yaml");
    writeFileSync(
      configFile,
      `server:\n  port: 0\ndatabase:\n  pgliteDir: ${join(dir, "db")}\nlog:\n  level: warn\n`,
    );
    const env = { BLOCKGATE_CONFIG: configFile, DATABASE_URL: "" };
    const { child, output } = await startProcess("npm", ["start", "--silent"], env, /usage demo\n/);
    try {
      const text = output();
      expect(text).toContain('demo account "demo": 1000000 CC available (created now)');
      const curl = text.match(
        /curl -s (\S+) -H 'content-type: application\/json' \\\n\s+-d '(.+)'/,
      );
      expect(curl).not.toBeNull();
      const [, url, body] = curl!;
      const res = await fetch(url!, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: body!,
      });
      const json = (await res.json()) as { result: string };
      expect(res.status).toBe(200);
      expect(
        json.result.startsWith(
          "0100000001c997a5e56e104102fa209c6a852dd90660a20b2d9c352423edce25857fcd3704",
        ),
      ).toBe(true);
      expect(body).toContain(HAL_TXID);

      // The CLI hands its command to the running gateway (it holds the PGlite store).
      const usage = await blockgate(["usage", "demo"], env);
      expect(usage.stdout).toContain("balance 999800 CC");
      expect(usage.stdout).toMatch(/node\tmainnet\tgetrawtransaction\t1\t200/);
    } finally {
      await stopProcess(child);
    }
  });
});
