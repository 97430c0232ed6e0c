// A subscription's events executed once for all its subscribers with the same document, operation
// and variables (src/routes/gateway/plugins/shared-events.ts), in a Yoga of its own over a schema
// that counts its resolutions: the bytes each subscriber reads are Yoga's own without the plugin;
// one execution per event and document where the event is one object for all; a delivery made for
// one subscriber (its final error) executed for it alone; other fields left to Yoga.
import { GraphQLError, GraphQLInt, GraphQLObjectType, GraphQLSchema, GraphQLString } from "graphql";
import { createYoga, maskError, type Plugin } from "graphql-yoga";
import { describe, expect, it } from "vitest";
import { sharedEventsPlugin } from "../../src/routes/gateway/plugins/shared-events.ts";

/** What each subscriber's stream is fed, in order; a stream ends at `null`. */
type Feed = (object | null)[];

/** A schema whose `newBlock` and `other` stream the feed, each subscriber its own iterator. */
function countingSchema(feed: Feed, counts: { height: number }) {
  const Block = new GraphQLObjectType({
    name: "Block",
    fields: {
      height: {
        type: GraphQLInt,
        resolve: (b: { height: number }) => {
          counts.height += 1;
          return b.height;
        },
      },
      hash: { type: GraphQLString },
    },
  });
  const stream = {
    type: Block,
    args: { tag: { type: GraphQLString } },
    subscribe: async function* () {
      for (const item of feed) {
        if (item === null) return;
        yield item;
      }
    },
    resolve: (delivery: unknown) => {
      if (delivery instanceof GraphQLError) throw delivery;
      return delivery;
    },
  };
  return new GraphQLSchema({
    query: new GraphQLObjectType({ name: "Query", fields: { ok: { type: GraphQLInt } } }),
    subscription: new GraphQLObjectType({
      name: "Subscription",
      fields: { newBlock: stream, other: stream },
    }),
  });
}

/** Yoga's own masking of an error, as its default config (the test's Yogas) masks. */
const yogaMasking = (error: unknown) => maskError(error, "Unexpected error.");

const yogaOf = (schema: GraphQLSchema, plugins: Plugin[] = []) =>
  createYoga({ schema, plugins, logging: false }) as unknown as { fetch: typeof fetch };

/** What one subscriber reads, whole, over Yoga's Server-Sent Events. */
async function read(
  yoga: { fetch: typeof fetch },
  query: string,
  variables: object = {},
): Promise<string> {
  const res = await yoga.fetch("http://yoga/graphql", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify({ query, variables }),
  });
  return res.text();
}

const refusal = () =>
  new GraphQLError("Insufficient credits: the subscription ends", {
    extensions: { code: "INSUFFICIENT_CREDITS", balance: 0, required: 5 },
  });

describe("subscription events executed once for the same document", () => {
  it("one execution per event and document; the bytes are Yoga's own", async () => {
    const blocks = [
      { height: 1, hash: "00ab" },
      { height: 2, hash: "00cd" },
    ];
    const query = "subscription { newBlock { height hash } }";
    const alone = { height: 0 };
    const expected = await read(yogaOf(countingSchema([...blocks, null], alone)), query);
    expect(alone.height).toBe(2);

    const counts = { height: 0 };
    const yoga = yogaOf(countingSchema([...blocks, null], counts), [
      sharedEventsPlugin(new Set(["newBlock"]), yogaMasking),
    ]);
    const three = await Promise.all([1, 2, 3].map(() => read(yoga, query)));
    expect(three).toEqual([expected, expected, expected]);
    expect(counts.height).toBe(2);
    // Other variables, another document: an execution of their own.
    const tagged = "subscription S($t: String) { newBlock(tag: $t) { height } }";
    await Promise.all([read(yoga, tagged, { t: "x" }), read(yoga, tagged, { t: "y" })]);
    expect(counts.height).toBe(6);
  });

  it("a delivery for one subscriber alone (its final error) is executed for it alone", async () => {
    const block = { height: 7, hash: "00ef" };
    const feed = () => [block, refusal(), null];
    const query = "subscription { newBlock { height } }";
    const expected = await read(yogaOf(countingSchema(feed(), { height: 0 })), query);
    expect(expected).toContain('"code":"INSUFFICIENT_CREDITS"');
    const counts = { height: 0 };
    // Each subscriber its own refusal, the block the same object for both.
    const feeds = [feed(), feed()];
    let next = 0;
    const schema = countingSchema([], counts);
    const newBlock = schema.getSubscriptionType()!.getFields().newBlock!;
    newBlock.subscribe = async function* () {
      for (const item of feeds[next++]!) if (item) yield item;
    };
    const yoga = yogaOf(schema, [sharedEventsPlugin(new Set(["newBlock"]), yogaMasking)]);
    const got = await Promise.all([1, 2].map(() => read(yoga, query)));
    expect(got).toEqual([expected, expected]);
    expect(counts.height).toBe(1);
  });

  it("leaves to Yoga the fields not named, and refusals before any event", async () => {
    const counts = { height: 0 };
    const schema = countingSchema([{ height: 3, hash: "0001" }, null], counts);
    const yoga = yogaOf(schema, [sharedEventsPlugin(new Set(["newBlock"]), yogaMasking)]);
    await Promise.all([1, 2].map(() => read(yoga, "subscription { other { height } }")));
    expect(counts.height).toBe(2);
    const bad = "subscription S($t: String) { newBlock(tag: $t) { height } }";
    const expected = await read(yogaOf(schema), bad, { t: 5 });
    expect(await read(yoga, bad, { t: 5 })).toBe(expected);
    expect(expected).toContain("errors");
  });

  it("masks an unexpected error once for all the event's subscribers, as Yoga would for each", async () => {
    const query = "subscription { newBlock { height hash } }";
    /** A schema whose hash fails (a fault of ours) and whose stream fails after its first event. */
    const faulty = () => {
      const schema = countingSchema([], { height: 0 });
      const block = { height: 9, hash: "00aa" };
      const newBlock = schema.getSubscriptionType()!.getFields().newBlock!;
      newBlock.subscribe = async function* () {
        yield block;
        throw new Error("the source's own words: a stack, a path");
      };
      const Block = schema.getType("Block") as GraphQLObjectType;
      Block.getFields().hash!.resolve = () => {
        throw new Error("internal detail: SELECT secret FROM somewhere");
      };
      return schema;
    };
    const expected = await read(yogaOf(faulty()), query);
    expect(expected).toContain("Unexpected error.");
    expect(expected).not.toContain("internal detail");
    let masked = 0;
    const counting = (error: unknown) => {
      masked += 1;
      return yogaMasking(error);
    };
    const yoga = yogaOf(faulty(), [sharedEventsPlugin(new Set(["newBlock"]), counting)]);
    const got = await Promise.all([1, 2].map(() => read(yoga, query)));
    expect(got).toEqual([expected, expected]);
    // The shared result's one error, once; the stream's failure, once per subscriber.
    expect(masked).toBe(3);
  });
});
