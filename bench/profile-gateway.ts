// Profiles the gateway process on one query shape of bench/graphql.ts: devnet and the gateway as
// there, the gateway under `node --cpu-prof` (profile written to the directory given), loaded for
// a few seconds. Usage: npx tsx bench/profile-gateway.ts <profile dir> [seconds] [concurrency] [a|b|c|n|v|g]
// c: block 277647 with its transactions joined to the node and their outputs, as (c) there.
// n: the node route instead (getrawtransaction over block 277647's transactions, as
// bench/node-route.ts sends them). v: the node route, one JSON-RPC batch of 50 verbose
// getrawtransaction calls (block 277647's transactions 1–50, as bench/cache.ts sends it). g: the
// same fifty through /gateway, `transactions(txids)` with the verbose fields (bench/cache.ts (b)).
// d: (b)'s query, each request fifty other transactions of block 574200, its body never sent
// before (as bench/distinct-transactions.ts sends them): with the cache of whole answers on, what
// a new request costs. FIELDS: the Transaction fields it selects (default (b)'s). e: (a) with other
// literal heights in every request (bench/graphql.ts (e)): a document the gateway has not seen.
// l: the ten latest blocks (bench/graphql.ts (d)); r: fifty transactions as the indexer's rows
// (bench/graphql.ts (b), "as rows"). Printed: the gateway's CPU a request, its settle statements, and
// every statement it sent per hundred requests. NODE_FLAGS: more of node's flags for the gateway
// (e.g. `--perf-basic-prof`, for `perf record -p` on its process).
import { readFileSync } from "node:fs";
import { Agent, request } from "undici";
import { cpuSpent, startChild, startGatewayChild } from "./child.ts";

const DIR = process.argv[2] ?? ".";
const SECONDS = Number(process.argv[3] ?? 5);
const CONCURRENCY = Number(process.argv[4] ?? 8);
const SHAPE = process.argv[5] ?? "a";
// (a) and (b) of bench/graphql.ts: ten blocks, or fifty transactions by txid (block 277647's).
const index = JSON.parse(
  readFileSync(new URL("../data/chain/blocks/INDEX.json", import.meta.url), "utf8"),
) as Record<string, { blocks: { height: number; tx: string[] }[] }>;
const txids = Object.values(index)
  .flatMap((f) => f.blocks)
  .find((b) => b.height === 277647)
  ?.tx.slice(0, 50);
const allTxids =
  Object.values(index)
    .flatMap((f) => f.blocks)
    .find((b) => b.height === 277647)?.tx ?? [];
const block574200 =
  Object.values(index)
    .flatMap((f) => f.blocks)
    .find((b) => b.height === 574200)?.tx ?? [];
/** Shape d's nth body: fifty disjoint txids, shifted by one each cycle of 65 (see above). */
const distinctBody = (n: number) => {
  const cycle = Math.floor(n / 65);
  const start = (n % 65) * 50 + (cycle % 50);
  const window = block574200.slice(start, start + 50);
  const rotation = Math.floor(cycle / 50) % 50;
  return JSON.stringify({
    query: `query ($txids: [TxId!]!) { transactions(txids: $txids) { ${process.env.FIELDS ?? "txid size vsize weight version locktime"} } }`,
    variables: { txids: [...window.slice(rotation), ...window.slice(0, rotation)] },
  });
};
let sent = 0;
/** Shape e's nth body: (a) with other literal heights, a document new to the gateway. */
const newDocument = (n: number) => {
  const from = 100 + ((n * 7) % 50_000);
  return JSON.stringify({
    query: `{ block(where: {height: {_gte: ${from}, _lte: ${from + 9}}}, order_by: {height: asc}) { hash height timestamp transaction_count size_bytes } }`,
  });
};
const NODE_BODIES = allTxids.map((txid, id) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "getrawtransaction", params: [txid] }),
);
const VERBOSE_BATCH = allTxids
  .slice(1, 51)
  .map((txid, id) => ({ jsonrpc: "2.0", id, method: "getrawtransaction", params: [txid, true] }));
const BODY = JSON.stringify(
  SHAPE === "v"
    ? VERBOSE_BATCH
    : SHAPE === "c"
      ? {
          query: `{ block(limit: 1, where: {height: {_eq: 277647}}) { hash height timestamp transactions(limit: ${allTxids.length}) { hash transaction { txid outputs { n value { sats } scriptPubKey { type address } } } } } }`,
        }
      : SHAPE === "g"
        ? {
            query: `query($ids: [TxId!]!) { transactions(txids: $ids) {
    txid hash version size vsize weight locktime blockhash confirmations time blocktime hex
    inputs { txid vout coinbase scriptSig { asm hex } witness sequence }
    outputs { n value { btc } scriptPubKey { asm desc hex address type } }
  } }`,
            variables: { ids: allTxids.slice(1, 51) },
          }
        : SHAPE === "l"
          ? {
              query:
                "{ block(limit: 10, order_by: {height: desc}) { hash height timestamp transaction_count size_bytes } }",
            }
          : SHAPE === "r"
            ? {
                query:
                  "query ($txids: [String!]) { block(limit: 1, where: {transactions: {hash: {_in: $txids}}}) { height transactions(limit: 50, where: {hash: {_in: $txids}}) { hash size_bytes input_count output_count } } }",
                variables: { txids },
              }
            : SHAPE === "b"
              ? {
                  query:
                    "query ($txids: [TxId!]!) { transactions(txids: $txids) { txid size vsize weight version locktime } }",
                  variables: { txids },
                }
              : {
                  query:
                    "{ block(where: {height: {_gte: 100, _lte: 109}}, order_by: {height: asc}) { hash height timestamp transaction_count size_bytes } }",
                },
);

interface Devnet {
  core: { url: string; user: string; password: string };
  indexer: { url: string; secret: string };
}
const devnet = await startChild<Devnet>("./devnet-process.ts");
const gateway = await startGatewayChild<{ url: string; token: string }>(
  "./gateway-process.ts",
  [JSON.stringify(devnet.info)],
  process.env,
  // DIR "-": no profile, only the CPU the gateway spent per request.
  [
    ...(DIR === "-" ? [] : ["--cpu-prof", `--cpu-prof-dir=${DIR}`]),
    ...(process.env.NODE_FLAGS?.split(" ").filter(Boolean) ?? []),
  ],
);
const url = `${gateway.info.url}/${SHAPE === "n" || SHAPE === "v" ? "node" : "gateway"}/mainnet/${gateway.info.token}`;
const dispatcher = new Agent({ connections: CONCURRENCY });
let deadline = 0;
let done = 0;
const load = () =>
  Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < deadline && done < 50_000) {
        const res = await request(url, {
          method: "POST",
          body:
            SHAPE === "n"
              ? (NODE_BODIES[done % NODE_BODIES.length] ?? BODY)
              : SHAPE === "d"
                ? distinctBody(sent++)
                : SHAPE === "e"
                  ? newDocument(sent++)
                  : BODY,
          headers: { "content-type": "application/json" },
          dispatcher,
        });
        await res.body.text();
        done++;
      }
    }),
  );
deadline = performance.now() + 2000; // warm-up: lazy imports and compilation out of the way
await load();
done = 0;
deadline = performance.now() + SECONDS * 1000;
type SettleStats = { batches: number; items: number };
const settlesBefore = await gateway.ask<SettleStats>("settles");
await gateway.ask("statements"); // forgets those of the warm-up
const cpuBefore = await gateway.ask<NodeJS.CpuUsage>("cpu");
await load();
const cpu = cpuSpent(cpuBefore, await gateway.ask<NodeJS.CpuUsage>("cpu"));
const settles = await gateway.ask<SettleStats>("settles");
const statements = settles.batches - settlesBefore.batches;
console.log(
  `gateway CPU ${(cpu / done).toFixed(0)} µs per request; ${statements} settle statements, ${((settles.items - settlesBefore.items) / Math.max(1, statements)).toFixed(1)} settles each`,
);
// Every statement the gateway sent meanwhile, per hundred requests, most frequent first.
const byHead = Object.entries(await gateway.ask<Record<string, number>>("statements"));
for (const [head, n] of byHead.sort((a, b) => b[1] - a[1])) {
  console.log(`${((100 * n) / done).toFixed(1).padStart(7)} per 100 requests  ${head}`);
}
await dispatcher.close();
console.log(`${done} requests in ${SECONDS} s`);
await gateway.stop();
await devnet.stop();
