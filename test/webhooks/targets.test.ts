import { describe, expect, it } from "vitest";
import { TargetPolicy } from "../../src/webhooks/targets.ts";

/** Where webhooks may go: the policy alone, as registration and every connection use it. */
describe("webhook targets: public addresses only unless the operator allows a block", () => {
  const strict = new TargetPolicy([]);

  it("refuses loopback, private, link-local, reserved and their IPv6 forms", async () => {
    for (const url of [
      "http://127.0.0.1/hook",
      "http://10.0.0.1/hook",
      "http://172.16.5.4/",
      "http://192.168.1.1/",
      "http://100.64.0.1/",
      "http://169.254.169.254/latest/meta-data",
      "http://0.0.0.0/",
      "http://[::1]/",
      "http://[::]/",
      "http://[fe80::1]/",
      "http://[fd00::1]/",
      "http://[::ffff:127.0.0.1]/",
      "http://[::ffff:a00:1]/",
      "http://[64:ff9b::a00:1]/",
      "http://localhost:8080/", // a name: refused by what it resolves to
    ]) {
      expect(await strict.check(url), url).toMatch(/not a public address/);
    }
    // The refusal names the setting that would allow it, for the operator who reads it.
    expect(await strict.check("http://127.0.0.1/hook")).toMatch(/webhooks\.allowTargets/);
  });

  it("lets public addresses through, and refuses what is not an http(s) URL", async () => {
    expect(await strict.check("https://8.8.8.8/hook")).toBeNull();
    expect(await strict.check("http://[2606:4700:4700::1111]/hook")).toBeNull();
    expect(await strict.check("ftp://8.8.8.8/")).toMatch(/http or https/);
    expect(await strict.check("http://u:p@8.8.8.8/")).toMatch(/credentials/);
    expect(await strict.check("not a url")).toMatch(/not a URL/);
  });

  it("an operator's allowance opens exactly its block", async () => {
    const allowed = new TargetPolicy(["127.0.0.1/32", "10.1.0.0/16"]);
    expect(await allowed.check("http://127.0.0.1:9000/hook")).toBeNull();
    expect(await allowed.check("http://10.1.2.3/hook")).toBeNull();
    expect(await allowed.check("http://127.0.0.2/hook")).toMatch(/not a public address/);
    expect(await allowed.check("http://10.0.0.1/hook")).toMatch(/not a public address/);
    expect(() => new TargetPolicy(["nonsense"])).toThrow(/allowTargets/);
  });

  it("the connection's own lookup refuses a name that resolves inward (DNS rebinding)", async () => {
    const err = await new Promise<NodeJS.ErrnoException | null>((resolve) =>
      strict.lookup("localhost", {}, (e) => resolve(e)),
    );
    expect(err?.code).toBe("EWEBHOOKTARGET");
  });
});
