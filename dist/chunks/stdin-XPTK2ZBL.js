// Built by `npm run build` from src/ (scripts/build.mjs); do not edit.

// src/cli/stdin.ts
var STDIN_BYTES_MAX = 16 * 1024 * 1024;
async function readAll(stream, bytesMax) {
  const chunks = [];
  let total = 0;
  for await (const chunk of stream) {
    const buf = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    total += buf.length;
    if (total > bytesMax) return { error: `more than ${bytesMax} bytes` };
    chunks.push(buf);
  }
  return { text: Buffer.concat(chunks).toString("utf8") };
}
export {
  STDIN_BYTES_MAX,
  readAll
};
