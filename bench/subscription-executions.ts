// The CPU one block event costs Yoga's subscribe for N subscribers of `subscription { newBlock {
// height hash } }` (graphql-tools' per-event execution, iterators and envelop's hooks; no HTTP,
// no metering), without and with the gateway's shared execution (plugins/shared-events.ts),
// alternating in one process: each run subscribes N times, then publishes K events to every
// subscriber's source and reads each result (checked to be the same for all), the first event
// not counted. Printed: CPU ms per event, each run and the median of each.
// Usage: NODE_ENV=production npx tsx bench/subscription-executions.ts [N=1000] [K=11] [runs=6]
import { loadavg } from "node:os";
import { GraphQLInt, GraphQLObjectType, GraphQLSchema, GraphQLString, parse } from "graphql";
import { createYoga, maskError, type Plugin } from "graphql-yoga";
import { sharedEventsPlugin } from "../src/routes/gateway/plugins/shared-events.ts";

const N = Number(process.argv[2] ?? 1000);
const K = Number(process.argv[3] ?? 11);
const RUNS = Number(process.argv[4] ?? 6);

/** Every subscriber's source hears each published event, the same object for all. */
const listeners = new Set<(event: object) => void>();

function source(): AsyncIterableIterator<object> {
  const queue: object[] = [];
  let wake: ((r: IteratorResult<object>) => void) | null = null;
  const hear = (event: object) => {
    if (!wake) return void queue.push(event);
    const w = wake;
    wake = null;
    w({ done: false, value: event });
  };
  listeners.add(hear);
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    next: () =>
      queue.length > 0
        ? Promise.resolve({ done: false, value: queue.shift()! })
        : new Promise((resolve) => {
            wake = resolve;
          }),
    return: async () => {
      listeners.delete(hear);
      return { done: true, value: undefined };
    },
  };
}

const Block = new GraphQLObjectType({
  name: "BlockEvent",
  fields: {
    kind: { type: GraphQLString },
    height: { type: GraphQLInt },
    hash: { type: GraphQLString },
    previousHash: { type: GraphQLString },
    time: { type: GraphQLInt },
  },
});
const schema = new GraphQLSchema({
  query: new GraphQLObjectType({ name: "Query", fields: { ok: { type: GraphQLInt } } }),
  subscription: new GraphQLObjectType({
    name: "Subscription",
    fields: { newBlock: { type: Block, subscribe: () => source(), resolve: (e: unknown) => e } },
  }),
});
const document = parse("subscription { newBlock { height hash } }");

/** CPU ms per event for N subscribers through a Yoga with these plugins. */
async function run(plugins: Plugin[]): Promise<number> {
  const { subscribe, contextFactory } = createYoga({
    schema,
    plugins,
    logging: false,
  }).getEnveloped({});
  const streams: AsyncIterator<unknown>[] = [];
  for (let i = 0; i < N; i++) {
    const out = await subscribe({ schema, document, contextValue: await contextFactory() });
    streams.push((out as AsyncIterable<unknown>)[Symbol.asyncIterator]());
  }
  let cpu = 0;
  for (let k = 0; k < K; k++) {
    const pending = streams.map((s) => s.next());
    const before = process.cpuUsage();
    const event = { kind: "CONNECTED", height: k, hash: "00".repeat(32), time: 1 };
    for (const hear of [...listeners]) hear(event);
    const results = await Promise.all(pending);
    const spent = process.cpuUsage(before);
    if (k > 0) cpu += (spent.user + spent.system) / 1000;
    if (new Set(results.map((r) => JSON.stringify(r.value))).size !== 1) {
      throw new Error("the subscribers' results differ");
    }
  }
  for (const s of streams) await s.return?.();
  return cpu / (K - 1);
}

/** Yoga's own masking of an error, as its default config masks. */
const yogaMasking = (error: unknown) => maskError(error, "Unexpected error.");
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const figures = { yoga: [] as number[], shared: [] as number[] };
for (let r = 0; r < RUNS; r++) {
  figures.yoga.push(await run([]));
  figures.shared.push(await run([sharedEventsPlugin(new Set(["newBlock"]), yogaMasking)]));
}
for (const [name, ms] of Object.entries(figures)) {
  console.log(
    `${name.padEnd(6)} ${ms.map((x) => x.toFixed(1)).join(" ")} ms CPU per event to ${N} subscribers; median ${median(ms).toFixed(1)}`,
  );
}
console.log(
  `load average ${loadavg()
    .map((x) => x.toFixed(1))
    .join(" ")}`,
);
