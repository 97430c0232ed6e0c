import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  ERROR_CODES,
  graphqlCodeOf,
  hasuraCodeOf,
  httpStatusOf,
  jsonRpcCodeOf,
  meaningOf,
} from "../../src/protocol/errors/codes.ts";

/** docs/users/errors.md's table is the closed list of error codes, row for row. */
describe("docs/users/errors.md", () => {
  const page = readFileSync("docs/users/errors.md", "utf8");
  const rows = page.split("\n").filter((line) => /^\| `[A-Z_]+` \|/.test(line));

  it("lists every code of the list, in its order, and no other", () => {
    expect(rows.map((r) => /^\| `([A-Z_]+)`/.exec(r)![1])).toEqual(ERROR_CODES);
  });

  it("gives each code its HTTP status, JSON-RPC, GraphQL and Hasura codes and its meaning", () => {
    for (const [i, code] of ERROR_CODES.entries()) {
      const cells = rows[i]!.split(" | ").map((c) => c.replace(/^\| |\s\|$/g, ""));
      expect(cells[1]).toBe(String(httpStatusOf(code)));
      expect(cells[2]).toBe(String(jsonRpcCodeOf(code)));
      expect(cells[3]).toBe(`\`${graphqlCodeOf(code)}\``);
      expect(cells[4]).toContain(`\`${hasuraCodeOf(code)}\``);
      expect(cells[5]).toBe(meaningOf(code));
    }
  });
});
