/**
 * Newline-delimited message framing (the Electrum protocol: one JSON message per line). Bytes are
 * buffered until a `\n`; a message that grows past `lineBytesMax` before its newline arrives is a
 * protocol violation the caller answers by closing the connection, so the buffer never grows
 * beyond the limit whatever the peer sends.
 */
export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;

  constructor(private readonly lineBytesMax: number) {}

  /** The complete lines in `chunk` (without their `\n`), or "too-long". */
  push(chunk: Buffer): string[] | "too-long" {
    const lines: string[] = [];
    let start = 0;
    for (;;) {
      const end = chunk.indexOf(0x0a, start);
      if (end < 0) break;
      const tail = chunk.subarray(start, end);
      if (this.size + tail.length > this.lineBytesMax) return "too-long";
      const line =
        this.parts.length === 0
          ? tail
          : Buffer.concat([...this.parts, tail], this.size + tail.length);
      lines.push(line.toString("utf8"));
      this.parts = [];
      this.size = 0;
      start = end + 1;
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      this.size += rest.length;
      if (this.size > this.lineBytesMax) return "too-long";
      // Copy: the socket may reuse its buffer.
      this.parts.push(Buffer.from(rest));
    }
    return lines;
  }
}
