import type { IncomingMessage, ServerResponse } from "node:http";
import { Pool } from "undici";

/**
 * The baseline the benches measure the gateway against: every POST forwarded to Core as it came,
 * the answer sent back as it came, nothing else.
 */
export function forwardToCore(
  core: { url: string; user: string; password: string },
  connections: number,
): {
  handle(req: IncomingMessage, res: ServerResponse): void;
  pool: Pool;
} {
  const target = new URL(core.url);
  const pool = new Pool(target.origin, { connections });
  const auth = `Basic ${Buffer.from(`${core.user}:${core.password}`).toString("base64")}`;
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      pool
        .request({
          path: target.pathname,
          method: "POST",
          body: Buffer.concat(chunks),
          headers: { "content-type": "application/json", authorization: auth },
        })
        .then(async (up) => {
          const answer = Buffer.from(await up.body.arrayBuffer());
          res.writeHead(up.statusCode, { "content-type": "application/json" });
          res.end(answer);
        })
        .catch(() => {
          res.writeHead(502);
          res.end();
        });
    });
  };
  return { handle, pool };
}
