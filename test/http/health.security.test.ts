import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGateway } from "../../src/app/app.ts";
import { parseConfig } from "../../src/config/load.ts";
import type { ReadyReport } from "../../src/routes/health/readiness.ts";
import {
  HAL_TXID,
  memoryStore,
  POSTGRES_URL,
  post,
  rpc,
  startTestGateway,
  type TestGateway,
} from "../support/harness.ts";
import { deadPort, nameOf } from "../support/health.ts";

/**
 * What health answers never give away: the database's address, tokens, upstream credentials,
 * paths or error texts; and what they answer to anything but GET on their own paths (404, the
 * gateway's plain JSON error, nothing of the readiness report).
 */
describe("health: security", () => {
  let t: TestGateway;
  let dead: number;
  const password = "pw-in-the-url-4af1";
  const path = "wallet/secret-path-9c2e";
  /** A node member configured with credentials and a path, that refuses connections. */
  const deadMember = {
    user: "gw-dead-user-61a0",
    password: "pw-dead-member-3c8d",
    path: "dead-path-5b7a",
  };
  beforeAll(async () => {
    dead = await deadPort();
    // PostgreSQL, so that there is a DATABASE_URL to keep out of the answers.
    t = await startTestGateway("postgres", {
      networks: ["regtest"],
      upstreams: {
        node: {
          regtest: [
            "devnet",
            {
              url: `http://127.0.0.1:${dead}/${deadMember.path}`,
              user: deadMember.user,
              password: deadMember.password,
            },
          ],
        },
      },
    });
  });
  afterAll(() => t.close());

  const NOT_FOUND = { error: { code: "ROUTE_NOT_FOUND", message: "no such route" } };

  it("members are host:port only: no user, password, path or secret of the configured URLs", async () => {
    // A second gateway on the same devnet, its node configured with credentials and a path in
    // the URL (devnet's Core answers any path), and the indexer's admin secret from config.
    const core = t.devnet.cores.get("regtest")!;
    const base = new URL(core.url);
    const url = `http://${core.user}:${core.password}@${base.host}/${path}?key=${password}`;
    const config = parseConfig({
      server: { port: 0 },
      networks: ["regtest"],
      database: { pgliteDir: "memory://" },
      demo: { enabled: false },
      log: { level: "silent" },
    });
    const indexer = t.devnet.indexers.get("regtest")!;
    const gw = await startGateway(config, {
      store: memoryStore(),
      nodeUpstreams: { regtest: [{ url, timeoutMs: 5_000, connections: 2, coalesceCallsMax: 16 }] },
      graphUpstreams: {
        regtest: [
          { url: indexer.url, adminSecret: indexer.secret, timeoutMs: 5_000, connections: 2 },
        ],
      },
      noAdminFile: true,
    });
    try {
      const res = await fetch(`${gw.url}/readyz`);
      const text = await res.text();
      expect(res.status).toBe(200);
      const body = JSON.parse(text) as ReadyReport;
      expect(body.upstreams?.node.regtest).toEqual({
        status: "healthy",
        members: [{ name: base.host, status: "up" }],
      });
      for (const secret of [core.password, password, "secret-path", indexer.secret, "http", "@"]) {
        expect(text).not.toContain(secret);
      }
    } finally {
      await gw.close();
    }
  });

  it("no health answer holds the database URL, a token, an upstream credential or an error text", async () => {
    const { token } = await t.account("prober", 10_000);
    await post(`${t.url}/node/regtest/${token}`, rpc("getrawtransaction", [HAL_TXID]));
    const core = t.devnet.cores.get("regtest")!;
    const indexer = t.devnet.indexers.get("regtest")!;
    const ready = await fetch(`${t.url}/readyz`);
    const readyText = await ready.text();
    // The dead member is named, and down; the devnet one is up: the gateway serves, degraded.
    expect(ready.status).toBe(200);
    expect((JSON.parse(readyText) as ReadyReport).upstreams?.node.regtest).toEqual({
      status: "degraded",
      members: [
        { name: nameOf(core.url), status: "up" },
        { name: `127.0.0.1:${dead}`, status: "down" },
      ],
    });
    const texts = [
      readyText,
      await (await fetch(`${t.url}/healthz`)).text(),
      await (await fetch(`${t.url}/readyz?verbose=1`)).text(),
    ];
    const secrets = [
      POSTGRES_URL,
      new URL(POSTGRES_URL).host,
      "postgres",
      t.schema!,
      token.slice(4),
      "bgt_",
      core.user,
      core.password,
      indexer.secret,
      deadMember.user,
      deadMember.password,
      deadMember.path,
      "ECONNREFUSED",
      "refused",
      "Error",
    ];
    for (const text of texts) {
      for (const secret of secrets) expect(text).not.toContain(secret);
    }
  });

  it("only GET: other methods on /healthz and /readyz are 404, with nothing of either answer", async () => {
    for (const route of ["/healthz", "/readyz"]) {
      for (const method of ["POST", "PUT", "DELETE", "PATCH"]) {
        const res = await fetch(`${t.url}${route}`, { method });
        expect(res.status, `${method} ${route}`).toBe(404);
        const text = await res.text();
        expect(JSON.parse(text)).toEqual(NOT_FOUND);
        expect(text).not.toContain("upstreams");
      }
      expect((await fetch(`${t.url}${route}`, { method: "HEAD" })).status).toBe(404);
    }
  });

  it("unknown paths near them are 404 in plain JSON", async () => {
    for (const route of ["/healthz/x", "/readyz/now", "/readyz/x/y"]) {
      const res = await fetch(`${t.url}${route}`);
      expect(res.status, route).toBe(404);
      expect(res.headers.get("content-type")).toBe("application/json");
      expect(await res.json()).toEqual(NOT_FOUND);
    }
    // A first segment no route has: plain JSON too, naming the backends served.
    for (const route of ["/health", "/HEALTHZ"]) {
      const res = await fetch(`${t.url}${route}`);
      expect(res.status, route).toBe(404);
      expect(res.headers.get("content-type")).toBe("application/json");
      expect(await res.json()).toMatchObject({
        error: { code: "ROUTE_NOT_FOUND", backends: expect.arrayContaining(["node", "gateway"]) },
      });
    }
  });

  it("request targets of bare slashes, absolute-form and `*` are answered, never a crash", async () => {
    // `GET //` once made the URL parser throw in routing and took the process down.
    const port = new URL(t.url).port;
    const raw = (target: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), "127.0.0.1", () =>
          socket.end(`GET ${target} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`),
        );
        let text = "";
        socket.on("data", (d: Buffer) => {
          text += d.toString();
        });
        socket.on("end", () => resolve(text));
        socket.on("error", reject);
      });
    // Leading slashes name no host: `//` is the front door.
    for (const target of ["//", "///"]) {
      expect((await raw(target)).split("\r\n")[0], target).toBe("HTTP/1.1 200 OK");
    }
    for (const target of ["//x/y", "http://elsewhere/nowhere", "*"]) {
      const answer = await raw(target);
      expect(answer.split("\r\n")[0], target).toBe("HTTP/1.1 404 Not Found");
      expect(JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4)), target).toMatchObject({
        error: { code: "ROUTE_NOT_FOUND" },
      });
    }
    // Leading slashes name no host: `//healthz` is /healthz.
    expect((await raw("//healthz")).split("\r\n")[0]).toBe("HTTP/1.1 200 OK");
    expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
  });
});
