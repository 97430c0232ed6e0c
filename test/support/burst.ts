import { Agent, request } from "undici";

export interface BurstReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  json: unknown;
}

/**
 * Many clients calling at the same moment, as a load balancer's kept-alive connections do: one
 * connection per request, all opened (and each used once) before the burst, so the requests'
 * bytes are written in one turn and reach the gateway together rather than trickling in behind
 * connection set-up. Returns the replies in the order of `requests`.
 */
export async function burst(
  origin: string,
  requests: readonly { path: string; body: unknown }[],
): Promise<BurstReply[]> {
  const agent = new Agent({ connections: requests.length, keepAliveTimeout: 30_000 });
  try {
    // Concurrent requests on an agent allowed one connection each open that many connections.
    await Promise.all(
      requests.map(async () => {
        const res = await request(`${origin}/healthz`, { dispatcher: agent });
        await res.body.text();
      }),
    );
    return await Promise.all(
      requests.map(async (r) => {
        const res = await request(`${origin}${r.path}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(r.body),
          dispatcher: agent,
        });
        const text = await res.body.text();
        return { status: res.statusCode, headers: res.headers, json: JSON.parse(text) as unknown };
      }),
    );
  } finally {
    await agent.close();
  }
}
