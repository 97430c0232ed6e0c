import { spawnSync } from "node:child_process";
import { expect, it } from "vitest";
import { bundled } from "../support/bundled.ts";

/**
 * `log.format: pretty` (and `auto` on a terminal): one readable line per entry on standard error,
 * nothing on standard output, where the start banner goes; tokens still redacted.
 */
it("pretty log lines are readable, on standard error, redacted", async () => {
  const code = `
    import { createLogger, prettyDestination } from "./src/log/logger.ts";
    const log = createLogger("info", await prettyDestination(false));
    log.info({ network: "regtest", token: "bgt_secret" }, "following the chains");
  `;
  const run = spawnSync(process.execPath, [await bundled({ code })], { encoding: "utf8" });
  expect(run.status, run.stderr).toBe(0);
  expect(run.stdout).toBe("");
  expect(run.stderr).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: following the chains /m);
  expect(run.stderr).toContain('"network":"regtest"');
  expect(run.stderr).not.toContain("bgt_secret");
  expect(run.stderr).not.toContain('"level"');
});
