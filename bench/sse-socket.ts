import { connect } from "node:net";
import { StringDecoder } from "node:string_decoder";

/**
 * A POST whose answer is a server-sent event stream, read straight off its socket: HTTP/1.1, the
 * body whole or chunked. A bench with a thousand subscribers in one process spends on them the
 * cores the server it measures runs on; read this way, a subscriber costs a `data` event and a
 * few string operations per event, not an HTTP client's stream and its promises.
 * `onData` gets each event's data lines joined, and when the chunk holding its end was read.
 */
export function postEventStream(
  url: URL,
  body: string,
  onData: (data: string, at: number) => void,
  onError: (error: string) => void,
): () => void {
  const socket = connect(Number(url.port), url.hostname);
  socket.setNoDelay(true);
  socket.write(
    `POST ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\n` +
      "content-type: application/json\r\naccept: text/event-stream\r\n" +
      `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  const decoder = new StringDecoder("utf8");
  let raw: Buffer = Buffer.alloc(0);
  let chunked: boolean | null = null; // null: the head is not read yet
  let text = "";
  socket.on("data", (bytes: Buffer) => {
    const at = performance.now();
    raw = raw.length === 0 ? bytes : Buffer.concat([raw, bytes]);
    if (chunked === null) {
      const end = raw.indexOf("\r\n\r\n");
      if (end < 0) return;
      const head = raw.subarray(0, end).toString("latin1");
      if (!/^HTTP\/1\.1 200 /.test(head)) {
        onError(head.split("\r\n")[0] ?? head);
        socket.destroy();
        return;
      }
      chunked = /\r\ntransfer-encoding:\s*chunked/i.test(head);
      raw = raw.subarray(end + 4);
    }
    if (chunked) text += unchunk();
    else {
      text += decoder.write(raw);
      raw = Buffer.alloc(0);
    }
    for (let end = text.indexOf("\n\n"); end >= 0; end = text.indexOf("\n\n")) {
      const data = dataOf(text.slice(0, end));
      text = text.slice(end + 2);
      if (data) onData(data, at);
    }
  });
  /** The body text of every whole chunk read; what is left waits for more bytes. */
  const unchunk = (): string => {
    let out = "";
    for (;;) {
      const line = raw.indexOf("\r\n");
      if (line < 0) return out;
      const size = Number.parseInt(raw.subarray(0, line).toString("latin1"), 16);
      if (raw.length < line + 2 + size + 2) return out;
      out += decoder.write(raw.subarray(line + 2, line + 2 + size));
      raw = raw.subarray(line + 2 + size + 2);
    }
  };
  socket.on("error", (err) => onError(String(err)));
  return () => socket.destroy();
}

/** An event's data lines, joined; "" for a comment (the opening one, keep-alives). */
function dataOf(event: string): string {
  let data = "";
  for (const line of event.split("\n")) {
    if (!line.startsWith("data:")) continue;
    data += (data ? "\n" : "") + line.slice(5).trim();
  }
  return data;
}
