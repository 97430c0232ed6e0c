// What combining costs a lone call: one getrawtransaction at a time through BitcoinCorePool to
// devnet's Core (in this process), with coalesceCallsMax 16 and 0 (off) taking turns call by
// call, so that a shared machine's load falls on both alike. The difference is the one
// setImmediate a call waits for others to join it. Usage:
//   npx tsx bench/core-combine.ts [calls]
import { startDevnet } from "../src/devnet/devnet.ts";
import { BitcoinCorePool } from "../src/upstreams/bitcoin-core/pool.ts";

const CALLS = Number(process.argv[2] ?? 6000);
const TXID = "f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16";
const call = [{ method: "getrawtransaction", params: [TXID] }];

const devnet = await startDevnet(["mainnet"]);
const core = devnet.cores.get("mainnet")!;
const base = {
  url: core.url,
  user: core.user,
  password: core.password,
  timeoutMs: 10_000,
  connections: 4,
};
const pools = [
  { label: "combining ≤16", pool: new BitcoinCorePool([{ ...base, coalesceCallsMax: 16 }]) },
  { label: "no combining", pool: new BitcoinCorePool([{ ...base, coalesceCallsMax: 0 }]) },
];
const latencies = pools.map(() => [] as number[]);
for (let i = 0; i < CALLS + 200; i++) {
  for (let k = 0; k < pools.length; k++) {
    const at = (k + i) % pools.length;
    const started = performance.now();
    const out = await pools[at]!.pool.batch(call);
    if (!out.ok) throw new Error(out.error.message);
    // The first 200 rounds warm the connections and the JIT up.
    if (i >= 200) latencies[at]!.push(performance.now() - started);
  }
}
console.log(`${CALLS} getrawtransaction calls each, one at a time, through BitcoinCorePool`);
pools.forEach((p, k) => {
  const sorted = latencies[k]!.sort((a, b) => a - b);
  const at = (q: number) => (sorted[Math.floor(sorted.length * q)]! * 1000).toFixed(0);
  const mean = (sorted.reduce((a, b) => a + b, 0) / sorted.length) * 1000;
  console.log(
    `${p.label.padEnd(14)} p50 ${at(0.5)} µs  p90 ${at(0.9)} µs  mean ${mean.toFixed(0)} µs`,
  );
});
for (const p of pools) await p.pool.close();
await devnet.close();
