/**
 * Largest standard input `decode -` reads: a block is at most 4,000,000 bytes (8,000,000 hex
 * digits); the rest is room for whitespace. Past it the command stops reading rather than buffer
 * whatever is piped in.
 */
export const STDIN_BYTES_MAX = 16 * 1024 * 1024;

/** All of a stream as UTF-8 text, or a one-line reason it was refused. */
export async function readAll(
  stream: NodeJS.ReadableStream,
  bytesMax: number,
): Promise<{ text: string } | { error: string }> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const buf = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    total += buf.length;
    // Leaving the loop early destroys the stream, so nothing more is read.
    if (total > bytesMax) return { error: `more than ${bytesMax} bytes` };
    chunks.push(buf);
  }
  return { text: Buffer.concat(chunks).toString("utf8") };
}
