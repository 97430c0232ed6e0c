import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HAL_TXID } from "../support/harness.ts";
import { connectOutcome } from "../support/net.ts";
import { blockgate, startProcess, stopProcess } from "../support/spawn.ts";

const HAL_HEX_START = "0100000001c997a5e56e104102fa209c6a852dd90660a20b2d9c352423edce25857fcd3704";

/** The first curl `npm start` prints: its URL and body. */
function firstCurl(text: string): { url: string; body: string } {
  const curl = text.match(/curl -s (\S+) -H 'content-type: application\/json' \\\n\s+-d '(.+)'/);
  expect(curl).not.toBeNull();
  return { url: curl![1]!, body: curl![2]! };
}

async function getrawtransaction(url: string, body: string): Promise<string> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { result: string }).result;
}

describe("npm start", () => {
  it("starts devnet and the gateway, prints a curl that works, keeps its token across restarts, and stops whole on SIGTERM", async () => {
    const dir = mkdtempSync(join(tmpdir(), "bg-start-"));
    const configFile = join(dir, "blockgate.yaml");
    writeFileSync(
      configFile,
      `server:\n  port: 0\ndatabase:\n  pgliteDir: ${join(dir, "db")}\nlog:\n  level: warn\n`,
    );
    const env = { BLOCKGATE_CONFIG: configFile, DATABASE_URL: "" };
    const first = await startProcess("npm", ["start", "--silent"], env, /usage demo\n/);
    let firstUrl: string;
    let token: string;
    try {
      const text = first.output();
      expect(text).toContain('demo account "demo": 1000000 CC available (created now)');
      const { url, body } = firstCurl(text);
      firstUrl = url;
      token = url.split("/").at(-1)!;
      expect(token).toMatch(/^bgt_/);
      expect(body).toContain(HAL_TXID);
      expect((await getrawtransaction(url, body)).startsWith(HAL_HEX_START)).toBe(true);

      // The CLI hands its command to the running gateway (it holds the PGlite store).
      const usage = await blockgate(["usage", "demo"], env);
      expect(usage.stdout).toContain("balance 999800 CC");
      expect(usage.stdout).toMatch(/node\tmainnet\tgetrawtransaction\t1\t200/);
    } finally {
      await stopProcess(first.child);
    }
    // SIGTERM to npm reaches the gateway itself: nothing listens any more, and it let go of the
    // store (its CLI hand-off file is gone, and the next start can open the same folder).
    expect(first.child.exitCode).toBe(0);
    expect(await connectOutcome(Number(new URL(firstUrl).port))).toBe("ECONNREFUSED");
    expect(existsSync(join(dir, "db.admin.json"))).toBe(false);

    const second = await startProcess("npm", ["start", "--silent"], env, /usage demo\n/);
    try {
      const text = second.output();
      expect(text).toContain('demo account "demo": 999800 CC available\n');
      // Not shown again (it is stored as a hash), not revoked: named by its hint.
      expect(text).not.toContain(token);
      expect(text).toContain(`its token: ${token.slice(0, 4)}…${token.slice(-4)}`);
      const { url, body } = firstCurl(text);
      expect(url.endsWith("/$TOKEN")).toBe(true);
      const withFirstToken = url.replace("$TOKEN", token);
      expect((await getrawtransaction(withFirstToken, body)).startsWith(HAL_HEX_START)).toBe(true);
    } finally {
      await stopProcess(second.child);
    }
    expect(second.child.exitCode).toBe(0);
    // Two `npm start`s and a CLI process, each loading PGlite: past the default 30 s when the
    // suite runs beside it on two cores. A hang guard, not a timing assertion.
  }, 120_000);
});
