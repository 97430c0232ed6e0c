import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rpc, startTestGateway, type TestGateway } from "../support/harness.ts";

/**
 * What a new user meets first: `/` says what is served and where to go; a wrong path is answered
 * in its route's protocol, naming what exists; a token sent without its scheme is taken or
 * explained. Nothing of this is charged.
 */
describe("the front door and wrong turns", () => {
  let t: TestGateway;
  let token: string;
  beforeAll(async () => {
    t = await startTestGateway("pglite", { networks: ["mainnet", "testnet4", "regtest"] });
    ({ token } = await t.account("newcomer", 10_000));
  });
  afterAll(() => t.close());

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${t.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });

  it("GET / is a page naming each backend, its networks, the dashboard and the catalogue", async () => {
    const res = await fetch(`${t.url}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await res.text();
    for (const text of [
      "/node/&lt;network&gt;",
      "/gateway/&lt;network&gt;",
      "mainnet, testnet4, regtest",
    ]) {
      expect(html).toContain(text);
    }
    for (const link of ['href="/dashboard"', 'href="/methods"', 'href="/healthz"']) {
      expect(html).toContain(link);
    }
  });

  it("a network not served: 404 in the route's own protocol, the networks listed, a typo guessed", async () => {
    const node = await post(`/node/mainet/${token}`, rpc("getblockcount", []));
    expect(node.status).toBe(404);
    expect(await node.json()).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: {
        code: -32002,
        message:
          'no network "mainet" on /node: networks served: mainnet, testnet4, regtest; did you mean "mainnet"?',
        data: { code: "ROUTE_NOT_FOUND", networks: ["mainnet", "testnet4", "regtest"] },
      },
    });
    const gateway = await post(`/gateway/testnet3/${token}`, { query: "{ __typename }" });
    expect(gateway.status).toBe(404);
    const body = (await gateway.json()) as { errors: { message: string; extensions: object }[] };
    expect(body.errors[0]!.message).toMatch(
      /networks served: mainnet, testnet4, regtest; did you mean "testnet4"\?$/,
    );
    expect(body.errors[0]!.extensions).toMatchObject({ code: "ROUTE_NOT_FOUND" });
  });

  it("a backend not served: plain JSON naming the backends, a typo guessed", async () => {
    const res = await post(`/nodes/mainnet/${token}`, rpc("getblockcount", []));
    expect(res.status).toBe(404);
    const body = (await res.json()) as {
      error: { code: string; message: string; backends: string[] };
    };
    expect(body.error.code).toBe("ROUTE_NOT_FOUND");
    expect(body.error.message).toMatch(/did you mean "node"\?$/);
    expect(body.error.backends).toEqual(
      expect.arrayContaining(["node", "electrum", "graph", "gateway"]),
    );
  });

  it("Authorization with our token and no scheme is taken; another scheme is told what to send", async () => {
    const bare = await post("/node/regtest", rpc("getblockcount", []), { authorization: token });
    expect(bare.status).toBe(200);
    const basic = await post("/node/regtest", rpc("getblockcount", []), {
      authorization: "Basic dXNlcjpwYXNz",
    });
    expect(basic.status).toBe(401);
    expect(JSON.stringify(await basic.json())).toContain("Authorization: Bearer <token>");
    const none = await post("/node/regtest", rpc("getblockcount", []));
    expect(JSON.stringify(await none.json())).toContain("at the end of the path");
  });

  it("a method a backend route does not take: the route's 405 in its protocol, Allow, its log line", async () => {
    // OPTIONS without an Origin is refused by the route's own hooks (it takes OPTIONS for
    // preflights); every other method it does not take must be refused the same way.
    const answer = async (path: string, method: string, headers: Record<string, string>) => {
      const res = await fetch(`${t.url}${path}`, { method, headers });
      const id = res.headers.get("x-request-id");
      const line = t.logs.map((l) => JSON.parse(l)).find((l) => l.requestId === id);
      return {
        status: res.status,
        allow: res.headers.get("allow"),
        verified: res.headers.get("x-blockgate-verified"),
        type: res.headers.get("content-type"),
        body: method === "HEAD" ? "" : await res.text(),
        line: { ...line, requestId: undefined, method: undefined, ms: undefined, time: undefined },
      };
    };
    const header = { "x-api-key": token };
    const routes: [string, Record<string, string>, string][] = [
      [`/node/mainnet/${token}`, {}, "POST"],
      ["/node/testnet4", header, "POST"],
      [`/electrum/mainnet/${token}`, {}, "POST"],
      [`/gateway/regtest/${token}`, {}, "GET, POST"],
      [`/graph/mainnet/${token}`, {}, "POST"],
      [`/esplora/mainnet/${token}/api/blocks/tip/height`, {}, "GET, POST"],
      ["/esplora/mainnet/api/tx", header, "GET, POST"],
    ];
    for (const [path, headers, allow] of routes) {
      const own = await answer(path, "OPTIONS", headers);
      expect(own, path).toMatchObject({ status: 405, allow, verified: "unchecked" });
      expect(own.body, path).toMatch(/METHOD_NOT_ALLOWED/);
      expect(own.line, path).toMatchObject({ msg: "request", status: 405 });
      for (const method of ["HEAD", "PUT", "DELETE", "PATCH", "PROPFIND"]) {
        const other = await answer(path, method, headers);
        expect(other, `${method} ${path}`).toEqual({
          ...own,
          body: method === "HEAD" ? "" : own.body,
        });
      }
    }
  });
});
