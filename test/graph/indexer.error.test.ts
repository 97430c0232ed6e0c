import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Devnet, startDevnet } from "../../src/devnet/devnet.ts";
import { matches, select } from "../../src/devnet/indexer/bool-exp.ts";

/** Hasura's refusals as devnet's indexer gives them: HTTP 200, one error, no `data`. */
let devnet: Devnet;
beforeAll(async () => {
  devnet = await startDevnet(["mainnet"]);
});
afterAll(() => devnet.close());

async function raw(body: unknown, secret?: string | null) {
  const indexer = devnet.indexers.get("mainnet")!;
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (secret !== null) headers["x-hasura-admin-secret"] = secret ?? indexer.secret;
  const res = await fetch(indexer.url, {
    method: "POST",
    headers,
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

const error = (message: string, path: string, code = "validation-failed") => ({
  errors: [{ message, extensions: { path, code } }],
});

async function refused(query: string, variables?: Record<string, unknown>) {
  const res = await raw({ query, variables });
  expect(res.status).toBe(200);
  expect(res.json).not.toHaveProperty("data");
  return res.json;
}

describe("devnet indexer: admin secret", () => {
  it("refuses a missing or wrong secret before reading the query", async () => {
    const before = devnet.indexers.get("mainnet")!.stats.queries;
    for (const secret of [null, "wrong"]) {
      const res = await raw({ query: "{ block { height } }" }, secret);
      expect(res.json).toEqual(
        error("invalid x-hasura-admin-secret/x-hasura-access-key", "$", "access-denied"),
      );
    }
    expect(devnet.indexers.get("mainnet")!.stats.queries).toBe(before);
  });
});

describe("devnet indexer: Hasura's validation errors", () => {
  it("names an unknown field with its path", async () => {
    expect(await refused("{ block { hash x } }")).toEqual(
      error(`field "x" not found in type: 'block'`, "$.selectionSet.block.selectionSet.x"),
    );
    expect(await refused("{ blocks { hash } }")).toEqual(
      error(`field "blocks" not found in type: 'query_root'`, "$.selectionSet.blocks"),
    );
    expect(await refused("{ b: block { transactions { txid } } }")).toEqual(
      error(
        `field "txid" not found in type: 'block_transaction'`,
        "$.selectionSet.block.selectionSet.transactions.selectionSet.txid",
      ),
    );
  });

  it("names an unknown argument at its field, and an unknown input field at its place", async () => {
    expect(await refused("{ block(first: 1) { hash } }")).toEqual(
      error(`"block" has no argument named "first"`, "$.selectionSet.block"),
    );
    expect(await refused("{ block(where: {txid: {_eq: 1}}) { hash } }")).toEqual(
      error(
        `field "txid" not found in type: 'block_bool_exp'`,
        "$.selectionSet.block.args.where.txid",
      ),
    );
    expect(await refused("{ block(where: {height: {_like: 1}}) { hash } }")).toEqual(
      error(
        `field "_like" not found in type: 'Int_comparison_exp'`,
        "$.selectionSet.block.args.where.height._like",
      ),
    );
  });

  it("names a value of the wrong type as Hasura does", async () => {
    expect(await refused('{ block(limit: "5") { hash } }')).toEqual(
      error(
        `expected a 32-bit integer for type "Int", but found a string`,
        "$.selectionSet.block.args.limit",
      ),
    );
    expect(await refused("{ block(where: {hash: {_eq: 5}}) { hash } }")).toEqual(
      error(
        `expected a string for type "String", but found an integer`,
        "$.selectionSet.block.args.where.hash._eq",
      ),
    );
    expect(await refused("{ block(order_by: {height: up}) { hash } }")).toEqual(
      error(
        `expected one of the values "asc", "asc_nulls_first", "asc_nulls_last", "desc", "desc_nulls_first", or "desc_nulls_last" for type "order_by", but found "up"`,
        "$.selectionSet.block.args.order_by.height",
      ),
    );
    expect(await refused("query ($l: Int) { block(limit: $l) { hash } }", { l: "ten" })).toEqual(
      error(`expected a 32-bit integer for type "Int", but found a string`, "$.variableValues.l"),
    );
    expect(await refused("query ($l: String) { block(limit: $l) { hash } }", { l: "1" })).toEqual(
      error(
        `variable "l" is declared as String, but used where Int is expected`,
        "$.selectionSet.block.args.limit",
      ),
    );
  });

  it("refuses null in a filter or limit (Hasura v2: never read as 'no filter')", async () => {
    expect(await refused("{ block(where: {height: {_eq: null}}) { hash } }")).toEqual(
      error(
        `expected a 32-bit integer for type "Int", but found null`,
        "$.selectionSet.block.args.where.height._eq",
      ),
    );
    // An absent variable is null too.
    expect(await refused("query ($h: Int) { block(where: {height: {_eq: $h}}) { hash } }")).toEqual(
      error(
        `expected a 32-bit integer for type "Int", but found null`,
        "$.selectionSet.block.args.where.height._eq",
      ),
    );
    expect(await refused("{ block(where: null) { hash } }")).toEqual(
      error(
        `expected an object for type "block_bool_exp", but found null`,
        "$.selectionSet.block.args.where",
      ),
    );
  });

  it("names missing arguments and selection sets", async () => {
    expect(await refused("{ block_by_pk { hash } }")).toEqual(
      error(`missing required field "hash"`, "$.selectionSet.block_by_pk.args.hash"),
    );
    expect(await refused("{ block }")).toEqual(
      error(`missing selection set for "block"`, "$.selectionSet.block.selectionSet"),
    );
    expect(await refused("{ block { hash { x } } }")).toEqual(
      error(
        "unexpected subselection set for non-object field",
        "$.selectionSet.block.selectionSet.hash",
      ),
    );
  });

  it("refuses unparsable queries and bodies with parse-failed", async () => {
    expect(await refused("{ block(")).toEqual(
      error("not a valid graphql query", "$.query", "parse-failed"),
    );
    expect((await raw({ variables: {} })).json).toEqual(
      error('key "query" not found', "$", "parse-failed"),
    );
    expect((await raw("{")).json).toEqual(error("invalid json", "$", "invalid-json"));
  });

  it("has no mutations, and wants an operation name among several operations", async () => {
    expect(await refused("mutation { block { hash } }")).toEqual(error("no mutations exist", "$"));
    expect(await refused("query A { block { hash } } query B { block { height } }")).toEqual(
      error(
        "exactly one operation has to be present in the document when operationName is not specified",
        "$",
      ),
    );
  });
});

describe("Hasura's NULL semantics (rows with NULL columns; devnet's own have none)", () => {
  const rows = [
    { id: 1, note: "a" },
    { id: 2, note: null },
    { id: 3, note: "c" },
  ];
  const ids = (where: Record<string, unknown>) =>
    rows.filter((r) => matches(where, r)).map((r) => r.id);

  it("never matches NULL with _eq, _neq, _in, _nin or a range; only _is_null sees it", () => {
    expect(ids({ note: { _eq: "a" } })).toEqual([1]);
    expect(ids({ note: { _neq: "a" } })).toEqual([3]);
    expect(ids({ note: { _nin: ["a"] } })).toEqual([3]);
    expect(ids({ note: { _gte: "" } })).toEqual([1, 3]);
    expect(ids({ _not: { note: { _eq: "a" } } })).toEqual([3]);
    expect(ids({ _or: [{ note: { _eq: "a" } }, { id: { _eq: 2 } }] })).toEqual([1, 2]);
    expect(ids({ note: { _is_null: true } })).toEqual([2]);
  });

  it("puts NULLs last for asc and first for desc, unless told otherwise", () => {
    const order = (dir: string) => select(rows, { order_by: [{ note: dir }] }).map((r) => r.id);
    expect(order("asc")).toEqual([1, 3, 2]);
    expect(order("desc")).toEqual([2, 3, 1]);
    expect(order("asc_nulls_first")).toEqual([2, 1, 3]);
    expect(order("desc_nulls_last")).toEqual([3, 1, 2]);
  });
});
