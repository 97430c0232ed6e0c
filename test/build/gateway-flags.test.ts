import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { DEPLOYED_GATEWAY_FLAGS } from "../../bench/child.ts";

/**
 * The gateway's Node flags (decision 0071) are written where its process is started: package.json's
 * start script, the image's NODE_OPTIONS, and the benches' gateway processes, which measure the
 * gateway as it is run. One of them changed alone would measure or ship something else.
 */
it("npm start, the image and the benches run the gateway with the same Node flags", () => {
  const flags = DEPLOYED_GATEWAY_FLAGS.join(" ");
  const { scripts } = JSON.parse(readFileSync("package.json", "utf8")) as {
    scripts: Record<string, string>;
  };
  expect(scripts.start).toBe(`exec node ${flags} bin/blockgate.js start`);
  expect(/^\s*NODE_OPTIONS=(\S+)/m.exec(readFileSync("Dockerfile", "utf8"))?.[1]).toBe(flags);
});
