/**
 * Records a few hundred raw HTTP exchanges over every route of a gateway started from this
 * checkout (devnet upstreams, PGlite in a temporary folder), and compares two recordings. It drives
 * only what outlives a reorganisation of src/: the built entry (`bin/blockgate.js start`), the CLI
 * (`bin/blockgate.js`) and HTTP, so the same script runs before and after one.
 *
 *   npx tsx scripts/exchanges.ts record <file.jsonl>
 *   npx tsx scripts/exchanges.ts compare <before.jsonl> <after.jsonl>
 *
 * What differs between two runs of the same code is normalised: the token, times and dates,
 * request ids, session cookies, the `date` and connection headers.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

interface Exchange {
  name: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

interface Recorded {
  name: string;
  request: { method: string; path: string; headers: Record<string, string>; body: string };
  status: number;
  headers: [string, string][];
  body: string;
}

const ROOT = join(import.meta.dirname, "..");
const HAL = "f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16";
const BLOCK_170 = "00000000d1145790a8694403d4063f323d499e655c83426834d4ce2f8dd4a2ee";
const BLOCK_277647 = "0000000000000000054a714e580b16c583701712ab91060e92dbde6eb1e052a8";
const TX_277647 = "7301b595279ece985f0c415e420e425451fcf7f684fcce087ba14d10ffec1121";
const DROPPED_HEADERS = new Set(["date", "connection", "keep-alive", "transfer-encoding"]);

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
    s.on("error", reject);
  });
}

function cli(env: NodeJS.ProcessEnv, args: string[]): string {
  return execFileSync("node", [join(ROOT, "bin/blockgate.js"), ...args], {
    env,
    encoding: "utf8",
  });
}

async function startGateway(
  dir: string,
): Promise<{ child: ChildProcess; base: string; env: NodeJS.ProcessEnv }> {
  const port = await freePort();
  const configFile = join(dir, "config.yaml");
  writeFileSync(
    configFile,
    [
      "server:",
      `  port: ${port}`,
      "database:",
      `  pgliteDir: ${join(dir, "db")}`,
      "demo:",
      "  enabled: false",
      "log:",
      "  level: warn",
      "",
    ].join("\n"),
  );
  // The embedded store and no Redis, whatever the shell says: a recording is of one setup.
  const { DATABASE_URL: _db, REDIS_URL: _redis, ...inherited } = process.env;
  const env: NodeJS.ProcessEnv = { ...inherited, BLOCKGATE_CONFIG: configFile };
  const child = spawn("node", [join(ROOT, "bin/blockgate.js"), "start"], {
    env,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const base = `http://127.0.0.1:${port}`;
  await new Promise<void>((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
      if (out.includes("listening")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`gateway exited (${code}) before listening`)));
  });
  child.stdout?.resume();
  return { child, base, env };
}

function rpc(method: string, params: unknown, id: unknown = 1, version: string | null = "2.0") {
  return JSON.stringify({ ...(version ? { jsonrpc: version } : {}), id, method, params });
}

const post = (
  name: string,
  path: string,
  body: string,
  headers: Record<string, string> = {},
): Exchange => ({
  name,
  method: "POST",
  path,
  headers: { "content-type": "application/json", ...headers },
  body,
});

interface CatalogueEntry {
  backend: "node" | "electrum";
  method: string;
  example: unknown[];
}

function catalogueExchanges(methods: CatalogueEntry[]): Exchange[] {
  const out: Exchange[] = [];
  for (const m of methods) {
    const path = `/${m.backend}/mainnet/<TOKEN>`;
    out.push(post(`${m.backend} ${m.method} example`, path, rpc(m.method, m.example)));
    out.push(post(`${m.backend} ${m.method} legacy`, path, rpc(m.method, m.example, "x", null)));
    out.push(post(`${m.backend} ${m.method} no params`, path, rpc(m.method, [])));
    out.push(post(`${m.backend} ${m.method} bad param`, path, rpc(m.method, [{ a: 1 }, "zz", -1])));
    out.push(
      post(
        `${m.backend} ${m.method} regtest`,
        `/${m.backend}/regtest/<TOKEN>`,
        rpc(m.method, m.example),
      ),
    );
  }
  return out;
}

function nodeExchanges(): Exchange[] {
  const p = "/node/mainnet/<TOKEN>";
  const out: Exchange[] = [];
  for (const verbose of [undefined, 0, 1, 2, true, false, "1", 3, -1]) {
    const params = verbose === undefined ? [HAL] : [HAL, verbose];
    out.push(
      post(
        `getrawtransaction verbose=${JSON.stringify(verbose)}`,
        p,
        rpc("getrawtransaction", params),
      ),
    );
  }
  out.push(post("getrawtransaction in block", p, rpc("getrawtransaction", [HAL, true, BLOCK_170])));
  out.push(
    post("getrawtransaction wrong block", p, rpc("getrawtransaction", [HAL, true, BLOCK_277647])),
  );
  out.push(post("getrawtransaction 277647 tx v2", p, rpc("getrawtransaction", [TX_277647, 2])));
  out.push(post("getrawtransaction unknown", p, rpc("getrawtransaction", ["00".repeat(32)])));
  out.push(post("getrawtransaction short", p, rpc("getrawtransaction", ["abc"])));
  out.push(post("getrawtransaction not hex", p, rpc("getrawtransaction", ["zz".repeat(32)])));
  out.push(post("getrawtransaction number", p, rpc("getrawtransaction", [5])));
  out.push(
    post("getrawtransaction named", p, rpc("getrawtransaction", { txid: HAL, verbose: true })),
  );
  for (const v of [0, 1, 2, 3])
    out.push(post(`getblock 170 v${v}`, p, rpc("getblock", [BLOCK_170, v])));
  out.push(post("getblock 277647 v1", p, rpc("getblock", [BLOCK_277647, 1])));
  out.push(post("getblockheader", p, rpc("getblockheader", [BLOCK_277647, false])));
  out.push(post("unknown method", p, rpc("nosuchmethod", [])));
  out.push(post("wallet method", p, rpc("sendtoaddress", ["x", 1])));
  out.push(post("parse error", p, "{not json"));
  out.push(post("top level number", p, "42"));
  out.push(post("empty body", p, ""));
  out.push(post("empty batch", p, "[]"));
  out.push(
    post(
      "batch",
      p,
      `[${rpc("getblockcount", [], 1)},${rpc("getbestblockhash", [], 2)},${rpc("nosuch", [], 3)},7]`,
    ),
  );
  out.push(
    post(
      "batch with notification",
      p,
      `[${rpc("getblockcount", [], 1)},{"jsonrpc":"2.0","method":"getblockcount","params":[]}]`,
    ),
  );
  out.push(post("notification", p, '{"jsonrpc":"2.0","method":"getblockcount","params":[]}'));
  out.push(post("missing method", p, '{"jsonrpc":"2.0","id":1}'));
  out.push(post("method not string", p, '{"jsonrpc":"2.0","id":1,"method":5}'));
  out.push(
    post("params string", p, '{"jsonrpc":"2.0","id":1,"method":"getblockcount","params":"x"}'),
  );
  out.push(post("version 3", p, '{"jsonrpc":"3.0","id":1,"method":"getblockcount","params":[]}'));
  out.push(post("string id", p, rpc("getblockcount", [], "abc")));
  out.push(post("null id", p, rpc("getblockcount", [], null)));
  out.push(post("object id", p, rpc("getblockcount", [], { a: [1, 2] })));
  out.push(post("legacy error", p, rpc("getrawtransaction", ["00".repeat(32)], 1, null)));
  out.push(post("legacy unknown method", p, rpc("nosuch", [], 1, null)));
  out.push(
    post("header token", "/node/mainnet", rpc("getblockcount", []), {
      authorization: "Bearer <TOKEN>",
    }),
  );
  out.push(
    post("x-api-key token", "/node/mainnet", rpc("getblockcount", []), { "x-api-key": "<TOKEN>" }),
  );
  out.push(
    post("basic auth ignored", "/node/mainnet", rpc("getblockcount", []), {
      authorization: "Basic dXNlcjpwYXNz",
    }),
  );
  out.push(post("no token", "/node/mainnet", rpc("getblockcount", [])));
  out.push(post("bad token", "/node/mainnet/bgt_nottherightone", rpc("getblockcount", [])));
  out.push(post("unknown network", "/node/mainet/<TOKEN>", rpc("getblockcount", [])));
  out.push(post("unknown backend", "/bitcoin/mainnet/<TOKEN>", rpc("getblockcount", [])));
  out.push(post("idempotent first", p, rpc("getblockcount", []), { "idempotency-key": "k-1" }));
  out.push(post("idempotent again", p, rpc("getblockcount", []), { "idempotency-key": "k-1" }));
  out.push(
    post("idempotent other body", p, rpc("getbestblockhash", []), { "idempotency-key": "k-1" }),
  );
  out.push({ name: "node GET", method: "GET", path: p });
  out.push({ name: "node PUT", method: "PUT", path: p, body: "{}" });
  out.push(post("node text/plain", p, rpc("getblockcount", []), { "content-type": "text/plain" }));
  out.push({
    name: "node OPTIONS",
    method: "OPTIONS",
    path: p,
    headers: {
      origin: "http://example.com",
      "access-control-request-method": "POST",
      "access-control-request-headers": "content-type",
    },
  });
  for (const net of ["testnet", "testnet4", "signet", "regtest"]) {
    out.push(post(`getblockchaininfo ${net}`, `/node/${net}/<TOKEN>`, rpc("getblockhash", [0])));
  }
  return out;
}

function electrumExchanges(): Exchange[] {
  const p = "/electrum/mainnet/<TOKEN>";
  const out: Exchange[] = [];
  for (const verbose of [undefined, false, true, 1, "x"]) {
    const params = verbose === undefined ? [HAL] : [HAL, verbose];
    out.push(
      post(
        `transaction.get verbose=${JSON.stringify(verbose)}`,
        p,
        rpc("blockchain.transaction.get", params),
      ),
    );
  }
  out.push(
    post(
      "electrum transaction.get unknown",
      p,
      rpc("blockchain.transaction.get", ["00".repeat(32)]),
    ),
  );
  out.push(post("electrum transaction.get bad", p, rpc("blockchain.transaction.get", ["xyz"])));
  out.push(
    post(
      "electrum transaction.get_merkle",
      p,
      rpc("blockchain.transaction.get_merkle", [HAL, 170]),
    ),
  );
  out.push(post("electrum block.header", p, rpc("blockchain.block.header", [170])));
  out.push(post("electrum block.header cp", p, rpc("blockchain.block.header", [170, 200])));
  out.push(post("electrum block.headers", p, rpc("blockchain.block.headers", [1, 5])));
  out.push(post("electrum server.version", p, rpc("server.version", ["rec", "1.4"])));
  out.push(post("electrum server.features", p, rpc("server.features", [])));
  out.push(post("electrum server.ping", p, rpc("server.ping", [])));
  out.push(post("electrum server.banner", p, rpc("server.banner", [])));
  out.push(post("electrum server.donation_address", p, rpc("server.donation_address", [])));
  out.push(post("electrum server.peers.subscribe", p, rpc("server.peers.subscribe", [])));
  out.push(post("electrum unknown method", p, rpc("blockchain.nosuch", [])));
  out.push(post("electrum parse error", p, "{"));
  out.push(
    post(
      "electrum batch",
      p,
      `[${rpc("server.ping", [], 1)},${rpc("blockchain.block.header", [1], 2)}]`,
    ),
  );
  out.push(post("electrum no token", "/electrum/mainnet", rpc("server.ping", [])));
  return out;
}

function graphql(query: string, variables?: unknown): string {
  return JSON.stringify(variables === undefined ? { query } : { query, variables });
}

function graphExchanges(): Exchange[] {
  const p = "/graph/mainnet/<TOKEN>";
  const q = (name: string, query: string, variables?: unknown) =>
    post(`graph ${name}`, p, graphql(query, variables));
  return [
    q(
      "latest block",
      "{ block(limit: 1, order_by: {height: desc}) { hash height timestamp transaction_count size_bytes transactions(limit: 3) { hash size_bytes input_count output_count } } }",
    ),
    q("by pk", `{ block_by_pk(hash: "${BLOCK_170}") { height transaction_count } }`),
    q("missing pk", `{ block_by_pk(hash: "${"00".repeat(32)}") { height } }`),
    q(
      "range",
      "{ block(where: {height: {_gte: 100, _lte: 110}}, order_by: {height: asc}) { height hash } }",
    ),
    q("offset", "{ block(limit: 5, offset: 10, order_by: {height: asc}) { height } }"),
    q("in", "{ block(where: {height: {_in: [1, 2, 170]}}) { height } }"),
    q("variables", "query($h: Int!) { block(where: {height: {_eq: $h}}) { hash } }", { h: 181 }),
    q("unknown field", "{ block { nope } }"),
    q("parse failed", "{ block { "),
    q("typename", "{ __typename }"),
    q(
      "and or",
      "{ block(where: {_or: [{height: {_eq: 1}}, {_and: [{height: {_gte: 2}}, {height: {_lte: 3}}]}]}) { height } }",
    ),
    q("big limit", "{ block(limit: 100000) { height } }"),
    post("graph not json", p, "nope"),
    post("graph no query", p, "{}"),
    { name: "graph GET", method: "GET", path: p },
  ];
}

function gatewayExchanges(): Exchange[] {
  const p = "/gateway/mainnet/<TOKEN>";
  const q = (name: string, query: string, variables?: unknown) =>
    post(`gateway ${name}`, p, graphql(query, variables));
  return [
    q(
      "transaction",
      `{ transaction(txid: "${HAL}") { txid status confirmations blockhash fee { btc sats } outputs { n value { btc sats } scriptPubKey { type address desc } } } }`,
    ),
    q(
      "transaction electrum",
      `{ transaction(txid: "${HAL}", source: ELECTRUM) { txid confirmations hex } }`,
    ),
    q("transaction missing", `{ transaction(txid: "${"00".repeat(32)}") { txid } }`),
    q("transaction bad", '{ transaction(txid: "xyz") { txid } }'),
    q("transactions", `{ transactions(txids: ["${HAL}", "${TX_277647}"]) { txid size weight } }`),
    q(
      "decode",
      `{ decodeTransaction(hex: "0100000000010000000000000000000000000000", network: MAINNET) { txid } }`,
    ),
    q(
      "blocks",
      "{ block(limit: 2, order_by: {height: desc}) { height hash transactions(limit: 2) { hash } } }",
    ),
    q("typename", "{ __typename }"),
    q("account", "{ account { balance available } }"),
    q("unknown field", "{ nope }"),
    q("syntax", "{ transaction("),
    q("variables", "query($t: String!) { transaction(txid: $t) { txid } }", { t: HAL }),
    q("introspection", "{ __schema { queryType { name } } }"),
    post("gateway not json", p, "nope"),
    { name: "gateway GET graphiql", method: "GET", path: p, headers: { accept: "text/html" } },
    {
      name: "gateway GET query",
      method: "GET",
      path: `${p}?query=${encodeURIComponent("{ __typename }")}`,
      headers: { accept: "application/json" },
    },
    post("gateway no token", "/gateway/mainnet", graphql("{ __typename }")),
    post("gateway unknown network", "/gateway/testnet3/<TOKEN>", graphql("{ __typename }")),
  ];
}

function otherExchanges(): Exchange[] {
  const get = (name: string, path: string, headers?: Record<string, string>): Exchange => ({
    name,
    method: "GET",
    path,
    headers,
  });
  return [
    get("root", "/"),
    get("healthz", "/healthz"),
    get("methods html", "/methods"),
    get("methods json", "/methods.json"),
    get("dashboard", "/dashboard"),
    get("dashboard css", "/dashboard/style.css"),
    get("dashboard js", "/dashboard/app.js"),
    get("dashboard export no session", "/dashboard/export.csv"),
    get("dashboard unknown", "/dashboard/nope"),
    get("metrics no credential", "/metrics"),
    post("admin cli no secret", "/admin/cli", "{}"),
    get("unknown path", "/nope"),
  ];
}

const normalise = (text: string, token: string) =>
  text
    .replaceAll(token, "<TOKEN>")
    .replaceAll(token.slice(-4), "<HINT>")
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)/g, "<TIME>")
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<UUID>")
    // devnet's own ports, its mempool's arrival times and its uptime change from run to run.
    .replace(/"tcp_port":\d+/g, '"tcp_port":<PORT>')
    .replace(/tcp:\/\/127\.0\.0\.1:\d+/g, "tcp://127.0.0.1:<PORT>")
    .replace(/"(time|uptime)":\d+/g, '"$1":<SECONDS>');

const volatile = (name: string) => name.includes(" uptime ");

async function record(file: string): Promise<void> {
  execFileSync("node", [join(ROOT, "scripts/build.mjs")], { stdio: "inherit" });
  const dir = mkdtempSync(join(tmpdir(), "blockgate-exchanges-"));
  const { child, base, env } = await startGateway(dir);
  try {
    cli(env, ["account", "create", "rec", "--credits", "100000000"]);
    const token = /bgt_[A-Za-z0-9_-]+/.exec(cli(env, ["token", "issue", "rec"]))?.[0];
    if (!token) throw new Error("no token issued");
    const methods = (await (await fetch(`${base}/methods.json`)).json()) as
      | { methods: CatalogueEntry[] }
      | CatalogueEntry[];
    const list = Array.isArray(methods) ? methods : methods.methods;
    const exchanges = [
      ...nodeExchanges(),
      ...electrumExchanges(),
      ...graphExchanges(),
      ...gatewayExchanges(),
      ...catalogueExchanges(list),
      ...otherExchanges(),
    ];
    const lines: string[] = [];
    for (const x of exchanges) {
      const fill = (s: string) => s.replaceAll("<TOKEN>", token);
      const headers = Object.fromEntries(
        Object.entries(x.headers ?? {}).map(([k, v]) => [k, fill(v)]),
      );
      const res = await fetch(base + fill(x.path), {
        method: x.method,
        headers,
        body: x.body === undefined ? undefined : fill(x.body),
      });
      const body = await res.text();
      const rec: Recorded = {
        name: x.name,
        request: { method: x.method, path: x.path, headers: x.headers ?? {}, body: x.body ?? "" },
        status: res.status,
        headers: [...res.headers]
          .filter(([k]) => !DROPPED_HEADERS.has(k))
          .map(([k, v]) => [k, normalise(v, token)]),
        body: volatile(x.name) ? "<VOLATILE>" : normalise(body, token),
      };
      lines.push(JSON.stringify(rec));
    }
    writeFileSync(file, `${lines.join("\n")}\n`);
    process.stdout.write(`recorded ${lines.length} exchanges in ${file}\n`);
  } finally {
    child.kill("SIGTERM");
    await new Promise((resolve) => child.once("exit", resolve));
    rmSync(dir, { recursive: true, force: true });
  }
}

function compare(a: string, b: string): number {
  const read = (f: string) =>
    readFileSync(f, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Recorded);
  const before = read(a);
  const after = new Map(read(b).map((r) => [r.name, r]));
  let differ = 0;
  const names = new Set(before.map((r) => r.name));
  if (names.size !== before.length) throw new Error("exchange names must be unique");
  for (const x of before) {
    const y = after.get(x.name);
    const same = y !== undefined && JSON.stringify(x) === JSON.stringify(y);
    if (!same) {
      differ++;
      process.stdout.write(
        `differs: ${x.name}\n  before: ${JSON.stringify([x.status, x.headers, x.body.slice(0, 300)])}\n  after:  ${y ? JSON.stringify([y.status, y.headers, y.body.slice(0, 300)]) : "(missing)"}\n`,
      );
    }
  }
  process.stdout.write(
    `${before.length} exchanges, ${before.length - differ} identical, ${differ} differ\n`,
  );
  return differ === 0 ? 0 : 1;
}

const [command, ...args] = process.argv.slice(2);
if (command === "record" && args.length === 1) await record(args[0]!);
else if (command === "compare" && args.length === 2) process.exitCode = compare(args[0]!, args[1]!);
else {
  process.stderr.write(
    "usage: exchanges.ts record <file.jsonl> | compare <before.jsonl> <after.jsonl>\n",
  );
  process.exitCode = 2;
}
