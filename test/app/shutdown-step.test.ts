import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { shutdownStep } from "../../src/app/shutdown.ts";
import { createLogger } from "../../src/log/logger.ts";

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
