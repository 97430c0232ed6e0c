import { describe, expect, it } from "vitest";
import { canonicalUrl } from "../../src/http/framework.ts";

/** The canonical form by the WHATWG URL parser alone: what canonicalUrl's fast path must equal. */
function byUrlParser(url: string): string {
  const parsed = new URL(`http://gateway${url}`);
  let path = "";
  for (const part of parsed.pathname.split("/")) {
    if (part !== "") path += `/${part.includes("%") ? part.replaceAll("%", "%25") : part}`;
  }
  return (path || "/") + parsed.search;
}

describe("canonicalUrl", () => {
  it("reads a target of leading slashes as a path, never as a host, and never throws", () => {
    expect(canonicalUrl("//")).toBe("/");
    expect(canonicalUrl("///x")).toBe("/x");
    expect(canonicalUrl("//a/b/")).toBe("/a/b");
    expect(canonicalUrl("//node/mainnet/t?x=1")).toBe("/node/mainnet/t?x=1");
    expect(canonicalUrl("http://elsewhere/node/mainnet/t")).toBe("/node/mainnet/t");
    expect(canonicalUrl("*")).toBe("/*");
    expect(() => canonicalUrl("http://[bad")).not.toThrow();
  });

  it("keeps a plain path as sent and agrees with the URL parser on 20,000 generated paths", () => {
    const token = "bgt_Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZg";
    expect(canonicalUrl(`/node/mainnet/${token}`)).toBe(`/node/mainnet/${token}`);
    // Characters that make the parser change a path: dots, escapes, spaces, non-ASCII, queries.
    const alphabet = [
      "a",
      "Z",
      "0",
      "_",
      "-",
      "~",
      ".",
      "..",
      "/",
      "//",
      "%",
      "%41",
      " ",
      "é",
      "?x=1",
      "#f",
      "\\",
    ];
    let seed = 42;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    for (let i = 0; i < 20_000; i++) {
      let url = "/";
      const length = 1 + (next() % 12);
      for (let k = 0; k < length; k++) url += alphabet[next() % alphabet.length];
      // Both give the same text, or both refuse it (`//host` paths the parser cannot read).
      const outcome = (f: (u: string) => string) => {
        try {
          return f(url);
        } catch (e) {
          return `threw ${(e as Error).name}`;
        }
      };
      expect(outcome(canonicalUrl), url).toBe(outcome(byUrlParser));
    }
  });
});
