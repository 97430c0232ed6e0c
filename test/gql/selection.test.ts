import { buildSchema, parse } from "graphql";
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/load.ts";
import { type CollectedField, walkSelections } from "../../src/protocol/graphql/selection.ts";
import { checkGraphQuery, type SelectedField } from "../../src/protocol/hasura/check.ts";
import { indexerSchema } from "../../src/protocol/hasura/schema.ts";
import { estimateCost } from "../../src/routes/gateway/cost/estimate.ts";
import { gatewaySchema } from "../../src/routes/gateway/schema.ts";

/**
 * The one selection walker (src/protocol/graphql/selection.ts): what it hands its visitor for documents whose
 * fragments, type conditions and directives a hand-written walker easily gets wrong, and what its
 * two users — the cost estimate and the indexer schema's checks — make of the same documents.
 */
const schema = buildSchema(`
  type Query { shop(id: Int): Shop  shops(limit: Int): [Shop!]!  version: String }
  type Shop { name: String  items(limit: Int): [Item!]!  owner: Person }
  type Item { sku: String  price: Int }
  type Person { name: String }
`);

/** Every field the walker visits, as `path` (response keys) and how many selections it merged. */
function walk(query: string, variables: Record<string, unknown> = {}): string[] {
  const document = parse(query);
  const operation = document.definitions.find((d) => d.kind === "OperationDefinition");
  if (operation?.kind !== "OperationDefinition") throw new Error("no operation");
  const seen: string[] = [];
  const root = { type: schema.getQueryType()!, selectionSet: operation.selectionSet };
  walkSelections(schema, document, variables, root, "", (field: CollectedField, at: string) => {
    const path = at ? `${at}.${field.responseKey}` : field.responseKey;
    seen.push(field.nodes.length > 1 ? `${path}×${field.nodes.length}` : path);
    return path;
  });
  return seen;
}

describe("the selection walker", () => {
  it("spreads nested fragments where they are used, parents before children", () => {
    expect(
      walk(`{ shop(id: 1) { ...A } version }
        fragment A on Shop { name ...B }
        fragment B on Shop { items(limit: 2) { ...C } }
        fragment C on Item { sku }`),
    ).toEqual(["shop", "shop.name", "shop.items", "shop.items.sku", "version"]);
  });

  it("takes inline fragments and spreads whose type condition matches, and only those", () => {
    expect(
      walk(`{ shop { ... on Shop { name } ... { owner { name } } ... on Item { sku } ...I } }
        fragment I on Item { price }`),
    ).toEqual(["shop", "shop.name", "shop.owner", "shop.owner.name"]);
  });

  it("applies @skip and @include, literal or variable, on fields, spreads and inline fragments", () => {
    const query = `query ($yes: Boolean!, $no: Boolean!) {
      version @skip(if: true)
      a: version @include(if: false)
      b: version @include(if: $yes)
      c: version @skip(if: $yes)
      d: version @skip(if: $no) @include(if: $yes)
      e: version @skip(if: $yes) @include(if: $yes)
      shop { ...S @include(if: $no) ... @skip(if: $no) { owner { name } } }
    }
    fragment S on Shop { name }`;
    expect(walk(query, { yes: true, no: false })).toEqual([
      "b",
      "d",
      "shop",
      "shop.owner",
      "shop.owner.name",
    ]);
    expect(walk(query, { yes: false, no: true })).toEqual(["c", "shop", "shop.name"]);
  });

  it("collects a fragment used twice in one selection once, and once under each field that uses it", () => {
    expect(
      walk(`{ shop { ...N ...N } other: shop { ...N items { ...P } } }
        fragment N on Shop { name }
        fragment P on Item { sku }`),
    ).toEqual(["shop", "shop.name", "other", "other.name", "other.items", "other.items.sku"]);
  });

  it("merges selections that share a response key, their sub-selections together", () => {
    expect(
      walk(`{ shop { name } ...Q shop { items { sku } } }
      fragment Q on Query { shop { owner { name } } }`),
    ).toEqual([
      "shop×3",
      "shop.name",
      "shop.owner",
      "shop.owner.name",
      "shop.items",
      "shop.items.sku",
    ]);
  });

  it("descends only where the visitor asks, and gives introspection fields no definition", () => {
    const document = parse("{ __typename shop { name } shops { name } }");
    const operation = document.definitions[0];
    if (operation?.kind !== "OperationDefinition") throw new Error("no operation");
    const seen: string[] = [];
    const root = { type: schema.getQueryType()!, selectionSet: operation.selectionSet };
    walkSelections(schema, document, {}, root, "", (field, at) => {
      seen.push(`${at}${field.responseKey}:${field.def ? field.parentType.name : "meta"}`);
      return field.responseKey === "shops" ? undefined : `${field.responseKey}.`;
    });
    expect(seen).toEqual(["__typename:meta", "shop:Query", "shop.name:Shop", "shops:Query"]);
  });
});

describe("the walker's users agree with execution", () => {
  const TXID = "f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16";
  const config = parseConfig({});
  const estimate = (query: string, variables: Record<string, unknown> = {}) =>
    estimateCost(gatewaySchema, parse(query), undefined, variables, {
      price: (method) => (method === "getrawtransaction" ? 200 : 0),
      listItemsMax: config.graphql.listItemsMax,
      descriptorAddressesMax: config.graphql.descriptorAddressesMax,
      graph: { limits: config.graph, price: (complexity) => 300 + complexity },
    });

  it("the estimate prices a field once however many fragments select it, and not when skipped", () => {
    const query = `query ($skip: Boolean!) {
      ...T ...T
      again: transaction(txid: "${TXID}") @skip(if: $skip) { txid }
    }
    fragment T on Query { transaction(txid: "${TXID}") { txid ... on Transaction { fee { sats } } } }`;
    const skipped = estimate(query, { skip: true });
    if (skipped instanceof Error) throw skipped;
    expect(skipped.items.map((i) => [i.path, i.count])).toEqual([["transaction", 1]]);
    expect(skipped.total).toBe(200);
    expect(skipped.wantsPrevouts).toBe(true);
    const kept = estimate(query, { skip: false });
    if (kept instanceof Error) throw kept;
    expect(kept.items.map((i) => i.path)).toEqual(["transaction", "again"]);
    expect(kept.total).toBe(400);
  });

  it("an indexer selection through fragments costs what it costs written out", () => {
    const plain = estimate(`{ block(limit: 2) { hash transactions(limit: 3) { hash } } }`);
    const spread = estimate(
      `query ($t: Boolean!) { ...B ...B }
      fragment B on Query { block(limit: 2) { ...H transactions(limit: 3) @include(if: $t) { ...H2 } } }
      fragment H on Block { hash }
      fragment H2 on BlockTransaction { hash }`,
      { t: true },
    );
    if (plain instanceof Error || spread instanceof Error) throw new Error("refused");
    expect(spread.graph).toEqual(plain.graph);
    expect(plain.graph?.complexity).toBe(2 + 4 + 8 + 18);
  });

  it("the Hasura check builds one tree from fragments, directives and repeated keys", () => {
    const checked = checkGraphQuery(indexerSchema(), {
      query: `query ($no: Boolean!) { ...Q block(limit: 1) { height } }
        fragment Q on query_root { block(limit: 1) { ...H ...H transactions @skip(if: $no) { hash } } }
        fragment H on block { hash }`,
      variables: { no: true },
      operationName: undefined,
    });
    if (!checked.ok) throw new Error(checked.error.message);
    const tree = (fields: SelectedField[]): unknown =>
      fields.map((f) => [f.path, f.depth, f.args, tree(f.children)]);
    expect(tree(checked.query.fields)).toEqual([
      [
        "$.selectionSet.block",
        1,
        { limit: 1 },
        [
          ["$.selectionSet.block.selectionSet.hash", 2, {}, []],
          ["$.selectionSet.block.selectionSet.height", 2, {}, []],
        ],
      ],
    ]);
  });
});
