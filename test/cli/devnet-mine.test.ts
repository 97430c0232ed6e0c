import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueOperatorToken } from "../../src/access/operator-token.ts";
import { issueToken } from "../../src/access/tokens.ts";
import { type RunningGateway, startGateway } from "../../src/app/app.ts";
import {
  resolveElectrumUpstreams,
  resolveEsploraUpstreams,
  resolveGraphUpstreams,
  resolveNodeUpstreams,
} from "../../src/app/upstreams.ts";
import { createAccount } from "../../src/billing/ledger/accounts.ts";
import { grantCredits } from "../../src/billing/ledger/ledger.ts";
import { parseLine } from "../../src/cli/commands.ts";
import { loadConfig } from "../../src/config/load.ts";
import type { DevnetChain } from "../../src/devnet/chain.ts";
import { type Devnet, startDevnet } from "../../src/devnet/devnet.ts";
import { attachDevnet } from "../../src/routes/admin/devnet-control.ts";
import { auditRecords } from "../support/audit.ts";
import { coreCaller } from "../support/devnet-core.ts";
import { balanceOf } from "../support/ledger.ts";
import { blockgate } from "../support/spawn.ts";
import { firstOverSocket, subscribeSse } from "../support/subscribers.ts";

/** `blockgate …` as its own process; it finds the gateway through the hand-off file. */
const cli = (args: string[], env: Record<string, string>) =>
  blockgate(args, { DATABASE_URL: "", BLOCKGATE_OPERATOR_TOKEN: "", ...env });

interface Change {
  network: string;
  tip: { height: number; hash: string };
  connected: { height: number; hash: string }[];
  disconnected: { height: number; hash: string }[];
}

describe("blockgate devnet mine / reorg through a running gateway", () => {
  const dir = mkdtempSync(join(tmpdir(), "bg-devnet-"));
  const configFile = join(dir, "blockgate.yaml");
  const operator = issueOperatorToken();
  writeFileSync(
    configFile,
    `networks: [regtest]\noperator:\n  tokenSha256: ["${operator.sha256}"]\ndatabase:\n  pgliteDir: ${join(dir, "db")}\nserver:\n  port: 0\ndemo:\n  enabled: false\nlog:\n  level: silent\n`,
  );
  const env = { BLOCKGATE_CONFIG: configFile };
  /** The devnet's own regtest chain (each devnet has one, from genesis). */
  let chain: DevnetChain;
  let devnet: Devnet;
  let gateway: RunningGateway;
  const core = async (method: string, params: unknown[] = []) =>
    (JSON.parse((await coreCaller(devnet)(method, params, "regtest")).text) as { result: unknown })
      .result;

  beforeAll(async () => {
    // Started as main.ts starts it: devnet, the gateway on a PGlite folder (so it writes the
    // hand-off file the CLI reads), then devnet handed to the gateway's operator endpoint.
    const config = loadConfig(configFile);
    devnet = await startDevnet(config.networks, config.devnet);
    chain = devnet.producers.get("regtest")!.chain;
    gateway = await startGateway(config, {
      nodeUpstreams: resolveNodeUpstreams(config, devnet),
      graphUpstreams: resolveGraphUpstreams(config, devnet),
      electrumUpstreams: resolveElectrumUpstreams(config, devnet),
      esploraUpstreams: resolveEsploraUpstreams(config, devnet),
    });
    attachDevnet(gateway.app, devnet.producers);
  }, 60_000);
  afterAll(async () => {
    await gateway?.close();
    await devnet?.close();
  });

  it("mine --blocks 3: three blocks on the regtest tip, printed as the change", async () => {
    const before = chain.tip.height;
    // The gateway's own Electrum upstream is subscribed to devnet's headers: it hears the new tip.
    const upstream = gateway.app.electrum.get("regtest")!.upstreams[0]!;
    const heard = new Promise<void>((resolve) => {
      // Its first tip (the subscription's answer at start) may come first: wait for the new one.
      const listener = (tip: { height: number }) => {
        if (tip.height !== before + 3) return;
        upstream.off("tip", listener);
        resolve();
      };
      upstream.on("tip", listener);
    });
    const out = await cli(["devnet", "mine", "--blocks", "3"], env);
    expect(out.stderr).toBe("");
    expect(out.code).toBe(0);
    const change = JSON.parse(out.stdout) as Change;
    expect(change.network).toBe("regtest");
    expect(change.connected.map((b) => b.height)).toEqual([before + 1, before + 2, before + 3]);
    expect(change.disconnected).toEqual([]);
    expect(change.tip).toEqual(change.connected[2]);
    expect(await core("getblockcount")).toBe(before + 3);
    expect(await core("getbestblockhash")).toBe(change.tip.hash);
    await heard;
  }, 60_000);

  it("a block mined by the CLI reaches a graphql-ws and an SSE subscriber, each delivery charged and audited", async () => {
    const db = gateway.app.db;
    const account = await createAccount(db, "live-subscriber");
    await grantCredits(db, account.id, 1_000);
    const { token } = await issueToken(db, account.id);
    // The gateway follows the chain (it leads on its PGlite store): its first look is done, so
    // the next block is news.
    await gateway.app.events.pollNow();
    const subscribed = { url: gateway.url, events: gateway.app.events };
    const query = "subscription { newBlock { kind hash } }";
    const socket = await firstOverSocket<{ newBlock: { kind: string; hash: string } }>(
      subscribed,
      token,
      query,
    );
    const sse = await subscribeSse(subscribed, token, query);
    const out = await cli(["devnet", "mine"], env);
    expect(out.code).toBe(0);
    const [block] = (JSON.parse(out.stdout) as Change).connected;
    // Announced by the follower on its own (the Electrum server's notice, or the next poll).
    expect((await socket.first)?.newBlock).toEqual({ kind: "CONNECTED", hash: block!.hash });
    const overSse = (await sse.next()) as { data: { data: { newBlock: unknown } } };
    expect(overSse.data.data.newBlock).toEqual({ kind: "CONNECTED", hash: block!.hash });
    await socket.dispose();
    sse.close();
    const price = gateway.app.config.pricing.events.newBlock.default;
    expect((await balanceOf(db, account.id)).balance).toBe(1_000 - 2 * price);
    const audit = await auditRecords(db, { accountId: account.id }, ["method", "charged_cc"]);
    expect(audit).toEqual([
      { method: "newBlock", charged_cc: price },
      { method: "newBlock", charged_cc: price },
    ]);
  }, 60_000);

  it("reorg --depth 2: a longer branch replaces the top two blocks; the old one is a valid-fork", async () => {
    const top = chain.tip.height;
    const old = [await core("getblockhash", [top - 1]), await core("getblockhash", [top])];
    const out = await cli(["devnet", "reorg", "--depth", "2"], env);
    expect(out.code).toBe(0);
    const change = JSON.parse(out.stdout) as Change;
    expect(change.disconnected).toEqual([
      { height: top, hash: old[1] },
      { height: top - 1, hash: old[0] },
    ]);
    expect(change.connected.map((b) => b.height)).toEqual([top - 1, top, top + 1]);
    expect(change.tip.height).toBe(top + 1);
    // Above the fork point every height holds another block now.
    expect(await core("getblockhash", [top - 1])).not.toBe(old[0]);
    expect(await core("getblockhash", [top])).not.toBe(old[1]);
    expect(await core("getblockhash", [top + 1])).toBe(change.tip.hash);
    const tips = (await core("getchaintips")) as Record<string, unknown>[];
    expect(tips).toContainEqual({ height: top, hash: old[1], branchlen: 2, status: "valid-fork" });
  }, 60_000);

  it("BLOCKGATE_OPERATOR_TOKEN is sent instead of the file's secret; a wrong one is refused", async () => {
    const ok = await cli(["devnet", "mine"], {
      ...env,
      BLOCKGATE_OPERATOR_TOKEN: operator.token,
    });
    expect(ok.code).toBe(0);
    expect((JSON.parse(ok.stdout) as Change).connected).toHaveLength(1);
    const wrong = await cli(["devnet", "mine"], {
      ...env,
      BLOCKGATE_OPERATOR_TOKEN: "bgo_wrong",
    });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain("operator credential required");
  }, 60_000);

  it("refusals: a network devnet does not serve here, a reorg deeper than the chain, bad options", async () => {
    const mainnet = await cli(["devnet", "mine", "--network", "mainnet"], env);
    expect(mainnet.code).toBe(1);
    expect(mainnet.stderr).toContain("devnet does not serve mainnet here");
    const deep = await cli(["devnet", "reorg", "--depth", "500"], env);
    expect(deep.code).toBe(1);
    expect(deep.stderr).toMatch(/cannot take 500 block/);
    // Found as the line is parsed, before the gateway is asked, as for every command: a process
    // prints it and exits 2 as the CLI's other mistakes do (test/cli/handoff.test.ts).
    const bad = parseLine(["devnet", "mine", "--blocks", "x"]);
    if (!("out" in bad)) throw new Error("--blocks x parsed as a command to run");
    expect(bad.out.code).toBe(2);
    expect(bad.out.text).toContain("usage: blockgate devnet mine");
  }, 60_000);

  it("POST /admin/devnet/*: the hand-off secret opens it, nothing else does; only POST", async () => {
    const { readAdminFile } = await import("../../src/routes/admin/admin-file.ts");
    const admin = readAdminFile(loadConfig(configFile))!;
    const post = (auth: string | undefined, method = "POST") =>
      fetch(`${gateway.url}/admin/devnet/mine`, {
        method,
        headers: auth ? { authorization: auth } : {},
        ...(method === "POST" ? { body: "{}" } : {}),
      });
    expect((await post(undefined)).status).toBe(401);
    expect((await post("Bearer nope")).status).toBe(401);
    expect((await post(`Bearer ${admin.secret}`, "GET")).status).toBe(405);
    const ok = await post(`Bearer ${admin.secret}`);
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as Change).connected).toHaveLength(1);
    const byOperator = await post(`Bearer ${operator.token}`);
    expect(byOperator.status).toBe(200);
    // The secret opens the CLI's endpoints only, not /metrics.
    expect(
      (
        await fetch(`${gateway.url}/metrics`, {
          headers: { authorization: `Bearer ${admin.secret}` },
        })
      ).status,
    ).toBe(401);
  });
});

describe("blockgate devnet without a gateway", () => {
  it("says so and exits 1", async () => {
    const dir = mkdtempSync(join(tmpdir(), "bg-devnet-"));
    const configFile = join(dir, "blockgate.yaml");
    writeFileSync(configFile, `database:\n  pgliteDir: ${join(dir, "db")}\n`);
    const out = await cli(["devnet", "mine"], { BLOCKGATE_CONFIG: configFile });
    expect(out.code).toBe(1);
    expect(out.stderr).toContain("no running gateway found");
  }, 60_000);
});
