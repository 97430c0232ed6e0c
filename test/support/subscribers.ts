import { createClient } from "graphql-ws";
import { expect, vi } from "vitest";
import { WebSocket } from "ws";

/** What the helpers need of a gateway: where it listens, and its count of chain subscribers. */
export interface Subscribed {
  url: string;
  events: { subscribers(): number };
}

export interface Sse {
  /** The next SSE message: its event name and parsed data (null when the stream ended). */
  next(): Promise<{ event: string; data: unknown } | null>;
  close(): void;
}

/**
 * A subscription over Server-Sent Events, read by hand as a plain HTTP client would. The gateway
 * answers once the stream has something to say (Yoga starts the source before it answers), so the
 * answer is awaited by the first read; the subscription is open once the gateway has subscribed
 * its source to the chain's events.
 */
export async function subscribeSse(
  gateway: Subscribed,
  token: string,
  query: string,
  network = "regtest",
): Promise<Sse> {
  const subscribersBefore = gateway.events.subscribers();
  const controller = new AbortController();
  const answered = fetch(`${gateway.url}/gateway/${network}/${token}`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify({ query }),
    signal: controller.signal,
  });
  answered.catch(() => {});
  await vi.waitFor(() => expect(gateway.events.subscribers()).toBe(subscribersBefore + 1), {
    timeout: 10_000,
  });
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  const decoder = new TextDecoder();
  let buffer = "";
  return {
    async next() {
      if (!reader) {
        const res = await answered;
        expect(res.status).toBe(200);
        expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
        reader = res.body!.getReader();
      }
      while (true) {
        const end = buffer.indexOf("\n\n");
        if (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const lines = block.split("\n");
          const event =
            lines
              .find((l) => l.startsWith("event:"))
              ?.slice(6)
              .trim() ?? "message";
          const data = lines
            .filter((l) => l.startsWith("data:"))
            .map((l) => l.slice(5).trim())
            .join("\n");
          if (!data && event !== "complete") continue; // a comment (keep-alive)
          return { event, data: data ? JSON.parse(data) : null };
        }
        const chunk = await reader.read();
        if (chunk.done) return null;
        buffer += decoder.decode(chunk.value, { stream: true });
      }
    },
    close: () => {
      void reader?.cancel().catch(() => {});
      controller.abort();
    },
  };
}

/** A graphql-ws client on the gateway's unified route, as a browser app would open it. */
export function graphqlWsClient(
  gateway: Pick<Subscribed, "url">,
  token: string,
  network = "regtest",
) {
  const port = new URL(gateway.url).port;
  return createClient({
    url: `ws://127.0.0.1:${port}/gateway/${network}/${token}`,
    webSocketImpl: WebSocket,
    retryAttempts: 0,
    lazy: true,
  });
}

/**
 * A graphql-ws subscription's first event, once the gateway has subscribed it to the chain's
 * events (resolve `opened` to go on); the rest of the stream is ended when it has come.
 */
export async function firstOverSocket<T>(
  gateway: Subscribed,
  token: string,
  query: string,
): Promise<{ first: Promise<T | null | undefined>; dispose(): Promise<void> }> {
  const client = graphqlWsClient(gateway, token);
  const before = gateway.events.subscribers();
  const stream = client.iterate<T>({ query });
  const first = stream.next().then((r) => r.value?.data);
  await vi.waitFor(() => expect(gateway.events.subscribers()).toBe(before + 1), {
    timeout: 10_000,
  });
  return {
    first,
    async dispose() {
      await stream.return?.();
      await client.dispose();
    },
  };
}
