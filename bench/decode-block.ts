// Decode block 702861 (2,500 txs) to Core-style JSON text N times and report ms/block and tx/s.
// Usage: npx tsx bench/decode-block.ts [iterations=20]
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { isLosslessNumber, stringify } from "lossless-json";
import { parseBlock } from "../src/bitcoin/block.ts";
import { toJsonText } from "../src/bitcoin/json-text.ts";
import { txToUniv } from "../src/bitcoin/tx-json.ts";

const FILE = join(
  import.meta.dirname,
  "..",
  "data",
  "chain",
  "blocks",
  "mainnet_block_000000000000000000000c835b2adcaedc20fdf6ee440009c249452c726dafae.raw",
);
const iterations = Number(process.argv[2] ?? 20);
const buf = readFileSync(FILE);
const bytes = new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);

/** Run `fn` `iterations` times after 3 warm-up runs; median ms per run. */
function time(label: string, fn: () => unknown): number {
  for (let i = 0; i < 3; i++) fn();
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const t0 = performance.now();
    fn();
    samples.push(performance.now() - t0);
  }
  samples.sort((a, b) => a - b);
  const median = samples[Math.floor(samples.length / 2)]!;
  console.log(`${label.padEnd(46)} ${median.toFixed(2).padStart(8)} ms/block`);
  return median;
}

const block = parseBlock(bytes);
const nTx = block.transactions.length;
console.log(`block ${block.hash}: ${nTx} txs, ${bytes.length} bytes, ${iterations} runs (median)`);

// Plain-number replacer for the baseline: what JSON.stringify would print if amounts were floats.
const plain = (_k: string, v: unknown) => (isLosslessNumber(v) ? Number(v.toString()) : v);

const parseOnly = time("parse only (parseBlock + txids)", () => {
  const b = parseBlock(bytes);
  for (const tx of b.transactions) void tx.txid;
});
const toObjects = time("parse + txToUniv objects", () =>
  parseBlock(bytes).transactions.map((tx) => txToUniv(tx, { network: "mainnet" })),
);
const objects = parseBlock(bytes).transactions.map((tx) => txToUniv(tx, { network: "mainnet" }));
const losslessOnly = time("lossless-json stringify of those objects", () => stringify(objects));
const fastOnly = time("toJsonText (same text, native walk)", () => toJsonText(objects));
const plainOnly = time("JSON.stringify (amounts as plain numbers)", () =>
  JSON.stringify(objects, plain),
);
const full = time("FULL: parse + txToUniv + lossless stringify", () =>
  stringify(parseBlock(bytes).transactions.map((tx) => txToUniv(tx, { network: "mainnet" }))),
);
const fast = time("FULL via toJsonText", () =>
  toJsonText(parseBlock(bytes).transactions.map((tx) => txToUniv(tx, { network: "mainnet" }))),
);
const baseline = time("BASELINE: parse + txToUniv + JSON.stringify", () =>
  JSON.stringify(
    parseBlock(bytes).transactions.map((tx) => txToUniv(tx, { network: "mainnet" })),
    plain,
  ),
);

const text = stringify(objects) ?? "";
if (toJsonText(objects) !== text) {
  throw new Error("toJsonText differs from lossless-json stringify");
}
console.log(`JSON text: ${(text.length / 1e6).toFixed(2)} MB`);
console.log(`full path: ${full.toFixed(1)} ms/block, ${Math.round((nTx / full) * 1000)} tx/s`);
console.log(
  `full via toJsonText: ${fast.toFixed(1)} ms/block, ${Math.round((nTx / fast) * 1000)} tx/s`,
);
console.log(
  `parse only: ${parseOnly.toFixed(1)} ms/block, ${Math.round((nTx / parseOnly) * 1000)} tx/s`,
);
console.log(
  `ratios: full / JSON.stringify baseline = ${(full / baseline).toFixed(2)}x; ` +
    `lossless / JSON.stringify (stringify only) = ${(losslessOnly / plainOnly).toFixed(2)}x; ` +
    `toJsonText / JSON.stringify = ${(fastOnly / plainOnly).toFixed(2)}x; ` +
    `full / parse-only = ${(full / parseOnly).toFixed(1)}x; objects share of full = ${((toObjects / full) * 100).toFixed(0)}%`,
);
