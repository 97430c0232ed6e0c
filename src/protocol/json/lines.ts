/**
 * Newline-delimited message framing (the Electrum protocol: one JSON message per line). Bytes are
 * buffered until a `\n`; a message that grows past `lineBytesMax` before its newline arrives is
 * never buffered beyond the limit, whatever the peer sends: `push` reports it at once (a client's
 * message: the caller closes the connection), `read` skips it to its end and reports its edges
 * (a server's answer: the caller tells whose it was, and the connection goes on).
 */
export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  /** The line being skipped, past the limit: its first and last bytes so far, and its length. */
  private long: { head: Buffer; tail: Buffer; bytes: number } | null = null;

  constructor(private readonly lineBytesMax: number) {}

  /** The complete lines in `chunk` (without their `\n`), or "too-long" once one is past the limit. */
  push(chunk: Buffer): string[] | "too-long" {
    const lines = this.read(chunk);
    if (this.long || lines.some((l) => typeof l !== "string")) return "too-long";
    return lines as string[];
  }

  /** The complete lines in `chunk`; a line past the limit comes as a LongLine, not kept. */
  read(chunk: Buffer): (string | LongLine)[] {
    const lines: (string | LongLine)[] = [];
    let start = 0;
    for (;;) {
      const end = chunk.indexOf(0x0a, start);
      const piece = chunk.subarray(start, end < 0 ? chunk.length : end);
      if (end < 0) {
        if (piece.length > 0) this.add(piece, true);
        return lines;
      }
      if (this.long === null && this.parts.length === 0 && piece.length <= this.lineBytesMax) {
        // The whole line is in this chunk: read as it is, no copy.
        lines.push(piece.toString("utf8"));
      } else {
        this.add(piece, false);
        lines.push(this.take());
      }
      start = end + 1;
    }
  }

  /** A piece of the current line; `keep`: copied, since the socket may reuse its buffer. */
  private add(piece: Buffer, keep: boolean): void {
    if (this.long) {
      this.long.bytes += piece.length;
      this.long.tail = lastBytes([this.long.tail, piece]);
      return;
    }
    if (this.size + piece.length <= this.lineBytesMax) {
      this.parts.push(keep ? Buffer.from(piece) : piece);
      this.size += piece.length;
      return;
    }
    const all = [...this.parts, piece];
    this.long = {
      head: Buffer.from(Buffer.concat(all, Math.min(this.size + piece.length, EDGE_BYTES))),
      tail: lastBytes(all),
      bytes: this.size + piece.length,
    };
    this.parts = [];
    this.size = 0;
  }

  /** The line just ended. */
  private take(): string | LongLine {
    const long = this.long;
    if (long) {
      this.long = null;
      return {
        head: long.head.toString("utf8"),
        tail: long.tail.toString("utf8"),
        bytes: long.bytes,
      };
    }
    const line = Buffer.concat(this.parts, this.size).toString("utf8");
    this.parts = [];
    this.size = 0;
    return line;
  }
}

/** A line past the limit, skipped: its first and last bytes (enough to find its id), its length. */
export interface LongLine {
  head: string;
  tail: string;
  bytes: number;
}

/** Bytes kept of each end of a skipped line. */
const EDGE_BYTES = 64;

/** The last EDGE_BYTES of the pieces, copied. */
function lastBytes(pieces: readonly Buffer[]): Buffer {
  const out: Buffer[] = [];
  let size = 0;
  for (let i = pieces.length - 1; i >= 0 && size < EDGE_BYTES; i--) {
    const p = pieces[i]!;
    const part = p.subarray(Math.max(p.length - (EDGE_BYTES - size), 0));
    out.unshift(part);
    size += part.length;
  }
  return Buffer.from(Buffer.concat(out, size));
}

/**
 * The id of a JSON-RPC answer seen only by its edges: first (`{"id": 5, …`: Fulcrum, electrs) or
 * last (`…, "id": 5}`: ElectrumX); undefined when neither edge shows one.
 */
export function idOfLongLine(line: LongLine): number | undefined {
  const first = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(\d+)\s*,/.exec(line.head);
  const last = /[,{]\s*"id"\s*:\s*(\d+)\s*\}\s*$/.exec(line.tail);
  const id = first?.[1] ?? last?.[1];
  return id === undefined ? undefined : Number(id);
}

/**
 * The same for a batch's answer (`[{…}, …, {…}]`): the id of its first item by the head, or of
 * its last by the tail. Any one names the batch it answers.
 */
export function idOfLongBatch(line: LongLine): number | undefined {
  const first = /^\s*\[\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(\d+)\s*,/.exec(
    line.head,
  );
  const last = /[,{]\s*"id"\s*:\s*(\d+)\s*\}\s*\]\s*$/.exec(line.tail);
  const id = first?.[1] ?? last?.[1];
  return id === undefined ? undefined : Number(id);
}
