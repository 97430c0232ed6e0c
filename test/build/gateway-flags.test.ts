import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { DEPLOYED_GATEWAY_FLAGS } from "../../bench/child.ts";

const flags = DEPLOYED_GATEWAY_FLAGS.join(" ");

/**
 * The gateway's Node flags (decision 0071) are written where its process is started: package.json's
 * start script, the command's first line (`npx blockgate`), the image's NODE_OPTIONS, and the
 * benches' gateway processes, which measure the gateway as it is run. One of them changed alone
 * would measure or ship something else.
 */
it("npm start, the command, the image and the benches give the gateway the same Node flags", () => {
  const { scripts } = JSON.parse(readFileSync("package.json", "utf8")) as {
    scripts: Record<string, string>;
  };
  expect(scripts.start).toBe(`exec node ${flags} bin/blockgate.js start`);
  expect(readFileSync("bin/blockgate.js", "utf8").split("\n")[0]).toBe(
    `#!/usr/bin/env -S node ${flags}`,
  );
  expect(/^\s*NODE_OPTIONS=(\S+)/m.exec(readFileSync("Dockerfile", "utf8"))?.[1]).toBe(flags);
});

it("the command run as a program (as `npx blockgate` runs it) starts Node with the flags", () => {
  const dir = mkdtempSync(join(tmpdir(), "blockgate-flags-"));
  try {
    // Loaded before the command by the very process its first line started: it reports the flags.
    const probe = join(dir, "probe.mjs");
    writeFileSync(probe, 'process.stderr.write(JSON.stringify(process.execArgv) + "\\n");\n');
    const run = spawnSync("bin/blockgate.js", ["start", "--help"], {
      encoding: "utf8",
      env: { ...process.env, NODE_OPTIONS: `--import=${probe}` },
    });
    expect(run.error, String(run.error)).toBeUndefined();
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain("--workers");
    expect(JSON.parse(run.stderr.split("\n")[0] ?? "")).toEqual(DEPLOYED_GATEWAY_FLAGS);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
