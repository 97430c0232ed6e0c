import { describe, expect, it } from "vitest";
import { idOfLongLine, LineSplitter } from "../../src/protocol/json/lines.ts";

const b = (s: string) => Buffer.from(s);

describe("LineSplitter", () => {
  it("splits lines across chunks", () => {
    const s = new LineSplitter(100);
    expect(s.read(b('{"a":1}\n{"b"'))).toEqual(['{"a":1}']);
    expect(s.read(b(":2}\n\n"))).toEqual(['{"b":2}', ""]);
  });

  it("push: a client's line past the limit is reported at once, before its newline", () => {
    const s = new LineSplitter(10);
    expect(s.push(b("short\n"))).toEqual(["short"]);
    expect(s.push(b("x".repeat(11)))).toBe("too-long");
  });

  it("read: a server's line past the limit is skipped to its end, only its edges kept", () => {
    const s = new LineSplitter(1_000);
    const head = '{"jsonrpc": "2.0", "result": "';
    const tail = '", "id": 42}';
    const body = "ab".repeat(50_000);
    // Sent in pieces of 4 KB, the way a socket delivers it, followed by a normal line.
    const all = b(`${head}${body}${tail}\n{"id":1}\n`);
    const got: unknown[] = [];
    for (let i = 0; i < all.length; i += 4096) got.push(...s.read(all.subarray(i, i + 4096)));
    expect(got).toHaveLength(2);
    const long = got[0] as { head: string; tail: string; bytes: number };
    expect(long.bytes).toBe(head.length + body.length + tail.length);
    expect(long.head.startsWith(head)).toBe(true);
    expect(long.tail.endsWith(tail)).toBe(true);
    expect(long.head.length).toBeLessThanOrEqual(64);
    expect(long.tail.length).toBeLessThanOrEqual(64);
    expect(idOfLongLine(long)).toBe(42);
    expect(got[1]).toBe('{"id":1}');
  });

  it("finds the id where servers write it, and nothing where none is", () => {
    const line = (head: string, tail: string) => ({ head, tail, bytes: 1e6 });
    expect(idOfLongLine(line('{"id":7,"jsonrpc":"2.0","result":"', 'aaaa"}'))).toBe(7);
    expect(idOfLongLine(line('{"jsonrpc":"2.0","id":8,"result":[', "]}"))).toBe(8);
    expect(idOfLongLine(line('{"jsonrpc": "2.0", "result": [', '], "id": 9}'))).toBe(9);
    // An "id" inside the result is not the answer's.
    expect(idOfLongLine(line('{"jsonrpc":"2.0","result":[{"id":3', '{"id":4}]}'))).toBeUndefined();
    expect(idOfLongLine(line("xxxx", "xxxx"))).toBeUndefined();
  });
});
