// A subscription's Server-Sent Events written by the gateway (src/routes/gateway/plugins/sse-events.ts):
// the bytes Yoga's own SSE processor writes for the same results, after the route's opening
// comment; taken over only where Yoga chose SSE; a client that leaves ends the results at once.
import type { Readable } from "node:stream";
import { type ExecutionResult, GraphQLError } from "graphql";
import { createYoga, type FetchAPI, getSSEProcessor } from "graphql-yoga";
import { describe, expect, it } from "vitest";
import type { GraphQLContext } from "../../src/routes/gateway/context.ts";
import { sseEvents, sseEventsPlugin } from "../../src/routes/gateway/plugins/sse-events.ts";
import { gatewaySchema } from "../../src/routes/gateway/schema.ts";

const fetchAPI: FetchAPI = createYoga({ schema: gatewaySchema }).fetchAPI;

/** Results as a subscription yields them: two blocks, then a final error with internals. */
function results(): ExecutionResult[] {
  const refused = new GraphQLError("Insufficient credits: 0 CC available: the subscription ends", {
    path: ["newBlock"],
    extensions: { code: "INSUFFICIENT_CREDITS", balance: 0, required: 5, http: { status: 429 } },
  });
  return [
    { data: { newBlock: { height: 1, hash: "00ab" } } },
    { data: { newBlock: { height: 2, hash: "00cd" } } },
    { data: { newBlock: null }, errors: [refused] },
  ];
}

async function* yielding<T>(items: T[], returned?: { at: number | null }): AsyncGenerator<T> {
  let i = 0;
  try {
    for (; i < items.length; i++) yield items[i]!;
  } finally {
    if (returned) returned.at = i;
  }
}

async function text(body: Readable): Promise<string> {
  let out = "";
  for await (const chunk of body) out += String(chunk);
  return out;
}

describe("subscription events written by the gateway", () => {
  it("writes Yoga's bytes for the same results, after the route's opening comment", async () => {
    const ours = await text(sseEvents(yielding(results()), fetchAPI));
    const yoga = await (await getSSEProcessor()(yielding(results()), fetchAPI, "")).text();
    expect(ours).toBe(`:\n\n${yoga}`);
    // The final error is cleaned of its internals (`http`) as Yoga cleans it.
    expect(ours).toContain('"code":"INSUFFICIENT_CREDITS"');
    expect(ours).not.toContain('"http"');
  });

  it("takes over a stream of results only where Yoga chose SSE", () => {
    const plugin = sseEventsPlugin();
    const state = {} as GraphQLContext["state"];
    const chosen: string[] = [];
    const hook = (result: unknown, resultProcessor: unknown) =>
      plugin.onResultProcess?.({
        request: new fetchAPI.Request("http://gateway/graphql"),
        acceptableMediaTypes: [],
        result,
        setResult: () => {},
        resultProcessor,
        setResultProcessor: (_p: unknown, type: string) => chosen.push(type),
        serverContext: { state } as GraphQLContext,
      } as never);
    hook(yielding(results()), getSSEProcessor());
    expect(chosen).toEqual(["text/event-stream"]);
    hook(results()[0], getSSEProcessor()); // one result, not a stream
    hook(yielding(results()), () => {}); // another processor (multipart)
    expect(chosen).toHaveLength(1);
  });

  it("a client that leaves ends the results at once", async () => {
    const returned = { at: null as number | null };
    const body = sseEvents(yielding(results(), returned), fetchAPI);
    const first = await new Promise<string>((resolve) => {
      let seen = "";
      body.on("data", (chunk) => {
        seen += String(chunk);
        if (seen.includes("event: next")) resolve(seen);
      });
    });
    expect(first).toContain('"height":1');
    body.destroy();
    await new Promise((resolve) => body.once("close", resolve));
    expect(returned.at).not.toBeNull();
    expect(returned.at).toBeLessThan(3);
  });
});
