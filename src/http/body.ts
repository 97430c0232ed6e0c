import type { IncomingMessage } from "node:http";

export class BodyTooLarge extends Error {}

/** Reads the body as UTF-8, refusing more than `bytesMax` (checked before and while reading). */
export async function readBody(req: IncomingMessage, bytesMax: number): Promise<string> {
  const declared = Number(req.headers["content-length"] ?? 0);
  if (declared > bytesMax) throw new BodyTooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > bytesMax) throw new BodyTooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}
