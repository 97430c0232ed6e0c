import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { SHUTDOWN_STEP_MS, shutdownStep } from "../../src/app/shutdown.ts";
import { createLogger } from "../../src/log/logger.ts";
import { HAL_TXID, post, rpc, startTestGateway } from "../support/harness.ts";
import { connectOutcome } from "../support/net.ts";

/** A logger writing into `lines`, as the gateway's writes to its output. */
function collecting(lines: string[]) {
  const out = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString("utf8"));
      done();
    },
  });
  return createLogger("info", out);
}

describe("a shutdown step", () => {
  it("that never ends is left behind after its time, named in a warning", async () => {
    const lines: string[] = [];
    const started = performance.now();
    await shutdownStep(collecting(lines), "store", () => new Promise(() => {}), 50);
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      level: 40,
      step: "store",
      ms: 50,
      msg: "shutdown: a step did not end in time; going on without it",
    });
  });

  it("that ends in time says nothing; one that fails fails the shutdown", async () => {
    const lines: string[] = [];
    const log = collecting(lines);
    let ran = false;
    await shutdownStep(log, "limits", async () => {
      ran = true;
    });
    expect(ran).toBe(true);
    await expect(
      shutdownStep(log, "store", () => Promise.reject(new Error("the store would not close"))),
    ).rejects.toThrow("the store would not close");
    expect(lines).toEqual([]);
  });
});

describe("a gateway whose store will not close", () => {
  it("still ends its shutdown: the store's step is named and left, the calls drained", async () => {
    const t = await startTestGateway("postgres", { networks: ["mainnet"] });
    let release!: () => void;
    try {
      const { token } = await t.account("stuck-store", 10_000);
      const answered = await post(
        `${t.url}/node/mainnet/${token}`,
        rpc("getrawtransaction", [HAL_TXID]),
      );
      expect(answered.status).toBe(200);
      // A connection of the store's pool held by a transaction that does not end: closing the
      // pool waits for it to be given back.
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      const stuck = t.gateway.app.db.transaction(() => held);
      const port = Number(new URL(t.url).port);
      const started = performance.now();
      await t.gateway.close();
      expect(performance.now() - started).toBeGreaterThanOrEqual(SHUTDOWN_STEP_MS - 50);
      const logs = t.logs.join("");
      expect(logs).toMatch(/"step":"store","ms":5000,"msg":"shutdown: a step did not end in time/);
      expect(logs).toMatch(/"cut":0,"msg":"drained"/);
      expect(await connectOutcome(port)).toBe("ECONNREFUSED");
      release();
      await stuck;
    } finally {
      release?.();
      await t.close();
    }
  }, 30_000);
});
