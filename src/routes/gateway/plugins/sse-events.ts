import { Readable } from "node:stream";
import type { ExecutionResult } from "graphql";
import { type FetchAPI, getSSEProcessor, isAsyncIterable, type Plugin } from "graphql-yoga";
import type { GraphQLContext } from "../context.ts";

/**
 * A subscription's Server-Sent Events written by the gateway itself, from the results Yoga's
 * execution yields, as a Node stream the route pipes to the socket. Yoga's own SSE processor wraps
 * each event in a web ReadableStream that the route then read back chunk by chunk into a Node
 * stream: for one block delivered to a thousand subscribers, that layering was a good share of the
 * gateway's time. The bytes are Yoga's: the same opening comments, the same `event: next` and
 * `event: complete` frames, each result serialised as Yoga serialises it, the same keep-alive
 * comment when idle. Only a stream Yoga would have written as SSE is taken over (its processor
 * chose, by the request's Accept); everything else stays Yoga's.
 */
export function sseEventsPlugin(): Plugin<GraphQLContext, GraphQLContext> {
  // A result given to many subscribers (plugins/shared-events.ts) is serialised once.
  const frames: Frames = new WeakMap();
  return {
    onResultProcess({ result, resultProcessor, setResultProcessor, serverContext: ctx }) {
      if (!isAsyncIterable(result) || resultProcessor?.name !== YOGA_SSE) return;
      setResultProcessor((results, fetchAPI) => {
        ctx.state.events = sseEvents(results as AsyncIterable<ExecutionResult>, fetchAPI, frames);
        return new fetchAPI.Response(null, { status: 200, headers: SSE_HEADERS });
      }, "text/event-stream");
    },
  };
}

/** Each result's frame, as bytes, for as long as the result lives. */
type Frames = WeakMap<ExecutionResult, Buffer>;

/** The name of the processor graphql-yoga's getSSEProcessor makes. */
const YOGA_SSE = "processSSEResult";

/** What Yoga's SSE processor answers with, for a stream of results. */
const SSE_HEADERS = {
  "Content-Type": "text/event-stream",
  Connection: "keep-alive",
  "Cache-Control": "no-cache",
  "Content-Encoding": "none",
};

/** The route's opening comment, then Yoga's (both as the route wrote them before). */
const OPENING = ":\n\n:\n\n";
const COMPLETE = "event: complete\ndata:\n\n";
/** Yoga's keep-alive period (its tests' own under NODE_ENV=test). */
const PING_MS = process.env.NODE_ENV === "test" ? 300 : 12_000;

/**
 * The results as SSE frames, one result read at a time as the socket takes them. When the client
 * goes away the route destroys the stream, and the results' source is told at once (`return`).
 */
export function sseEvents(
  results: AsyncIterable<ExecutionResult>,
  fetchAPI: FetchAPI,
  frames: Frames = new WeakMap(),
): Readable {
  const iterator = results[Symbol.asyncIterator]();
  let reading = false;
  let ended = false;
  const pull = (): void => {
    reading = true;
    iterator
      .next()
      .then(({ done, value }) => {
        const frame = value == null ? "" : frameOf(value, fetchAPI, frames);
        // A result written as Yoga writes it is framed at once; only a final error waits.
        if (typeof frame === "string" || Buffer.isBuffer(frame)) return write(done, frame);
        return frame.then((f) => write(done, f));
      })
      .catch((err: unknown) => body.destroy(err instanceof Error ? err : new Error(String(err))));
  };
  const write = (done: boolean | undefined, frame: string | Buffer): void => {
    reading = false;
    if (ended) return;
    if (!done) {
      if (frame === "") pull();
      else body.push(frame);
      return;
    }
    ended = true;
    clearInterval(ping);
    body.push(typeof frame === "string" ? frame + COMPLETE : `${frame.toString()}${COMPLETE}`);
    body.push(null);
  };
  const body = new Readable({
    read() {
      if (!reading && !ended) pull();
    },
    destroy(err, callback) {
      clearInterval(ping);
      if (ended) return callback(err);
      ended = true;
      Promise.resolve(iterator.return?.()).then(
        () => callback(err),
        () => callback(err),
      );
    },
  });
  // As Yoga's: a comment when nothing waits to be sent.
  const ping = setInterval(() => {
    if (!ended && body.readableLength === 0) body.push(":\n\n");
  }, PING_MS);
  body.push(OPENING);
  return body;
}

/**
 * One result's frame. A result without errors or HTTP extensions is written as Yoga writes it
 * (its own `stringify`, else JSON), once per result however many subscribers it goes to; any
 * other (a subscription's final error) is given to Yoga's processor alone, so that its errors are
 * cleaned of internals exactly as Yoga cleans them.
 */
function frameOf(
  result: ExecutionResult,
  fetchAPI: FetchAPI,
  frames: Frames,
): Buffer | Promise<string> {
  const extensions = result.extensions as { http?: unknown } | undefined;
  if (!result.errors?.length && !extensions?.http) {
    let frame = frames.get(result);
    if (frame === undefined) {
      const stringify =
        (result as { stringify?: (r: unknown) => string }).stringify ?? JSON.stringify;
      frame = Buffer.from(`event: next\ndata: ${stringify(result)}\n\n`);
      frames.set(result, frame);
    }
    return frame;
  }
  return yogaFrame(result, fetchAPI);
}

/** A result with errors as Yoga's SSE processor writes it alone, its internals cleaned. */
async function yogaFrame(result: ExecutionResult, fetchAPI: FetchAPI): Promise<string> {
  const alone = await (await getSSEProcessor()(result, fetchAPI, "text/event-stream")).text();
  // Yoga's stream of one result: its opening comment, the frame, then `complete`.
  return alone.slice(":\n\n".length, alone.length - COMPLETE.length);
}
