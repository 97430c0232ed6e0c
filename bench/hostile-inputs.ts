// How long the gateway's own reading of a client's input takes for the hostile shapes of
// test/support/arbitraries.ts, at growing sizes: the JSON-RPC envelope (node and Electrum routes,
// HTTP and sessions alike) with an object of n keys in id, params or another member, compact or
// spaced, and one key of n characters; the graph route's check of n nested `_and`, a list n deep
// and a chain of n fragments. Prints ms (least of `reps` runs, after one to warm up) and what the
// reader made of it — a value, a refusal, or the error it threw (a stack overflow, say). Imports
// only what each version of the gateway has had, so that it can time one before a change too.
// Usage: npx tsx bench/hostile-inputs.ts [reps=3]

import { checkGraphQuery } from "../src/protocol/hasura/check.ts";
import { indexerSchema } from "../src/protocol/hasura/schema.ts";
import { parseRequestBody } from "../src/protocol/json/envelope.ts";

const reps = Number(process.argv[2] ?? 3);

function time(fn: () => string): { ms: number; outcome: string } {
  let outcome = "";
  let ms = Number.POSITIVE_INFINITY;
  for (let i = 0; i <= reps; i++) {
    const started = performance.now();
    try {
      outcome = fn();
    } catch (err) {
      outcome = `threw ${(err as Error).name}: ${(err as Error).message.slice(0, 40)}`;
    }
    // The first run warms up and is not counted.
    if (i > 0) ms = Math.min(ms, performance.now() - started);
  }
  return { ms, outcome };
}

function wide(n: number): Record<string, number> {
  const o: Record<string, number> = {};
  for (let i = 0; i < n; i++) o[`k${i}`] = i;
  return o;
}

function row(label: string, bytes: number, fn: () => string): void {
  const { ms, outcome } = time(fn);
  console.log(
    `${label.padEnd(34)} ${String(bytes).padStart(9)} B ${ms.toFixed(1).padStart(9)} ms  ${outcome}`,
  );
}

console.log("JSON-RPC envelope (parseRequestBody)");
for (const n of [10_000, 20_000, 50_000]) {
  for (const member of ["id", "params", "extra"] as const) {
    const value = {
      jsonrpc: "2.0",
      id: member === "id" ? wide(n) : 1,
      method: "getrawtransaction",
      params: member === "params" ? wide(n) : ["00"],
      ...(member === "extra" ? { extra: wide(n) } : {}),
    };
    for (const [style, body] of [
      ["compact", JSON.stringify(value)],
      ["spaced", JSON.stringify(value, null, 1)],
    ] as const) {
      row(`${n} keys in ${member}, ${style}`, body.length, () => parseRequestBody(body).kind);
    }
  }
}
for (const n of [250_000, 1_000_000]) {
  const body = `{ "id": 1, "method": "getrawtransaction", "params": { "${"k".repeat(n)}": 1 } }`;
  row(`a key of ${n} characters, spaced`, body.length, () => parseRequestBody(body).kind);
}

console.log("\ngraph route's check (checkGraphQuery, graph.tokensMax 10000)");
const schema = indexerSchema();
const graph = (query: string) => () => {
  const checked = checkGraphQuery(
    schema,
    { query, variables: {}, operationName: undefined },
    10_000,
  );
  return checked.ok
    ? "ok"
    : `${checked.error.extensions.code}: ${checked.error.message.slice(0, 50)}`;
};
for (const n of [31, 200, 2_000]) {
  const query = `{ block(where: ${"{_and: [".repeat(n)}{height: {_eq: 1}}${"]}".repeat(n)}) { height } }`;
  row(`${n} nested _and`, query.length, graph(query));
}
for (const n of [5_000, 50_000]) {
  const query = `{ block(where: {height: {_in: ${"[".repeat(n)}1${"]".repeat(n)}}}) { height } }`;
  row(`a list ${n} deep`, query.length, graph(query));
}
for (const n of [1_000, 12_500]) {
  const parts = ["{ ...F0 }"];
  for (let i = 0; i < n; i++) parts.push(`fragment F${i} on query_root { ...F${i + 1} }`);
  parts.push(`fragment F${n} on query_root { __typename }`);
  const query = parts.join("\n");
  const checked = () => {
    const out = checkGraphQuery(schema, { query, variables: {}, operationName: undefined });
    return out.ok ? "ok" : `${out.error.extensions.code}: ${out.error.message.slice(0, 50)}`;
  };
  row(`a chain of ${n} fragments (no token limit)`, query.length, checked);
}
