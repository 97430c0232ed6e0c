import { readFileSync } from "node:fs";
import fc from "fast-check";
import {
  buildSchema,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLSchema,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
} from "graphql";

/**
 * Hostile inputs for every backend route, as fast-check arbitraries: JSON-RPC envelopes and Core
 * parameters (node, Electrum), GraphQL documents built from the unified API's and the indexer's
 * own schemas with wrong-typed arguments and garbage mixed in, and path segments. Shared by
 * test/http/properties.security.test.ts (few runs, seeded, shrunk on failure) and bench/fuzz.ts
 * (ten thousand against a gateway in its own process), so both send the same kinds of input.
 * A case names its route kind, so a check knows which protocol the answer must be in.
 */

export type RouteKind = "node" | "electrum" | "gateway" | "graph" | "path";

export interface FuzzCase {
  kind: RouteKind;
  method: string;
  /** Path with `{token}` and `{network}` still to fill in (see `pathOf`). */
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
  /** The answer must come within this, whatever the case's size (hostile shapes). */
  answerMsMax?: number;
}

/** Real mainnet facts devnet serves (see data/chain/README.md). */
const HAL_TXID = "f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16";
const BLOCK_170 = "00000000d1145790a8694403d4063f323d499e655c83426834d4ce2f8dd4a2ee";

/** The path a case is sent to, with the account's token and the network filled in. */
export function pathOf(c: FuzzCase, token: string, network = "mainnet"): string {
  return c.path.replaceAll("{token}", token).replaceAll("{network}", network);
}

// ---------------------------------------------------------------------------------------------
// JSON values

/** Any JSON value, small, with the awkward ones weighted in. */
const awkwardScalar = fc.constantFrom<unknown>(
  0,
  -0,
  -1,
  1,
  2,
  0.5,
  1e308,
  -1e308,
  2 ** 53 + 1,
  4294967296,
  "",
  "0",
  "1",
  "true",
  "null",
  "[]",
  "\u0000",
  "\ud800",
  "__proto__",
  "constructor",
  HAL_TXID,
  BLOCK_170,
  true,
  false,
  null,
);

export const jsonValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: awkwardScalar },
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
);

// ---------------------------------------------------------------------------------------------
// Core and Electrum parameters

const hexChar = fc.constantFrom(..."0123456789abcdefABCDEF");
/** A txid or block hash: valid, wrong length, not hex, upper case, or not a string at all. */
export const hashParam: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(HAL_TXID, BLOCK_170, HAL_TXID.toUpperCase(), `${HAL_TXID}00`, ""),
  fc.string({ unit: hexChar, minLength: 0, maxLength: 70 }),
  fc.string({ unit: hexChar, minLength: 64, maxLength: 64 }),
  fc.nat({ max: 128 }).map((n) => HAL_TXID.slice(0, n)),
  fc.string({ maxLength: 64 }),
  jsonValue,
);

/** Verbosity of every JSON type (Core takes a boolean or an integer; Electrum a boolean). */
export const verbosityParam: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(true, false, 0, 1, 2, 3, -1, 1.5, 2 ** 31, "1", "true", null, [], {}),
  jsonValue,
);

/** getrawtransaction's (and blockchain.transaction.get's) parameters, positional or named. */
export const txParams: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.tuple(hashParam).map(([txid]) => [txid]) },
  { weight: 4, arbitrary: fc.tuple(hashParam, verbosityParam) },
  { weight: 2, arbitrary: fc.tuple(hashParam, verbosityParam, hashParam) },
  {
    weight: 2,
    arbitrary: fc.record(
      {
        txid: hashParam,
        tx_hash: hashParam,
        verbose: verbosityParam,
        verbosity: verbosityParam,
        blockhash: hashParam,
      },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: fc.array(jsonValue, { maxLength: 6 }) },
  { weight: 1, arbitrary: jsonValue },
);

// ---------------------------------------------------------------------------------------------
// JSON-RPC envelopes

const RPC_METHODS = [
  "getrawtransaction",
  "blockchain.transaction.get",
  "getblockcount",
  "getblockhash",
  "getbestblockhash",
  "stop",
  "help",
  "server.version",
  "",
  "__proto__",
  "constructor",
  "getrawtransaction\u0000",
  "GETRAWTRANSACTION",
];

/** One JSON-RPC call: every field may be missing, mistyped or odd. */
export const rpcCall = (method: string): fc.Arbitrary<Record<string, unknown>> =>
  fc.record(
    {
      jsonrpc: fc.oneof(
        { weight: 6, arbitrary: fc.constant<unknown>("2.0") },
        { weight: 2, arbitrary: fc.constant<unknown>("1.0") },
        { weight: 1, arbitrary: jsonValue },
      ),
      id: jsonValue,
      method: fc.oneof(
        { weight: 6, arbitrary: fc.constant<unknown>(method) },
        { weight: 2, arbitrary: fc.constantFrom<unknown>(...RPC_METHODS) },
        { weight: 1, arbitrary: jsonValue },
      ),
      params: fc.oneof({ weight: 4, arbitrary: txParams }, { weight: 1, arbitrary: jsonValue }),
      extra: jsonValue,
    },
    { requiredKeys: [] },
  );

/** A body for a JSON-RPC route: one call, a batch (empty, small or past the limit), or junk. */
export const rpcBody = (method: string, batchItemsMax = 100): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 8, arbitrary: rpcCall(method).map((c) => JSON.stringify(c)) },
    {
      weight: 2,
      arbitrary: fc.array(rpcCall(method), { maxLength: 4 }).map((c) => JSON.stringify(c)),
    },
    {
      weight: 1,
      // Past the batch limit: refused whole, before any call is looked at.
      arbitrary: fc.integer({ min: batchItemsMax + 1, max: batchItemsMax + 3 }).map((n) =>
        JSON.stringify(
          Array.from({ length: n }, (_, i) => ({
            jsonrpc: "2.0",
            id: i,
            method,
            params: [HAL_TXID],
          })),
        ),
      ),
    },
    { weight: 1, arbitrary: jsonValue.map((v) => JSON.stringify(v) ?? "") },
    { weight: 1, arbitrary: garbled(rpcCall(method).map((c) => JSON.stringify(c))) },
  );

/** Text cut anywhere, or with a character swapped in: mostly unparsable. */
function garbled(text: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc
    .tuple(text, fc.nat(), fc.string({ unit: "binary", maxLength: 3 }), fc.boolean())
    .map(([t, at, insert, cut]) => {
      const i = at % (t.length + 1);
      return cut ? t.slice(0, i) : t.slice(0, i) + insert + t.slice(i + 1);
    });
}

// ---------------------------------------------------------------------------------------------
// GraphQL documents from a schema

const schemaOf = (file: string): GraphQLSchema =>
  buildSchema(readFileSync(new URL(`../../schema/${file}`, import.meta.url), "utf8"));

/** A GraphQL literal, printed: strings, numbers, enums, lists and objects, or a variable. */
const anyLiteral: fc.Arbitrary<string> = fc.letrec<{ lit: string }>((tie) => ({
  lit: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom(
      "0",
      "-1",
      "1",
      "1000000",
      "2147483648",
      "1.5",
      "true",
      "null",
      '""',
      "desc",
      "FULL_NODE",
      "$v",
      JSON.stringify(HAL_TXID),
      JSON.stringify(BLOCK_170),
    ),
    fc.integer().map(String),
    fc.string({ maxLength: 20 }).map((s) => JSON.stringify(s)),
    fc.array(tie("lit"), { maxLength: 3 }).map((xs) => `[${xs.join(", ")}]`),
    fc
      .array(fc.tuple(fc.constantFrom("_eq", "height", "_and", "hash", "x"), tie("lit")), {
        maxLength: 3,
      })
      .map((kv) => `{${kv.map(([k, v]) => `${k}: ${v}`).join(", ")}}`),
  ),
})).lit;

/** A literal of the input type (mostly well formed), else any literal (wrong type). */
function literalOf(type: GraphQLInputType, depth: number): fc.Arbitrary<string> {
  const valid = validLiteral(type, depth);
  return fc.oneof({ weight: 3, arbitrary: valid }, { weight: 1, arbitrary: anyLiteral });
}

function validLiteral(type: GraphQLInputType, depth: number): fc.Arbitrary<string> {
  if (isNonNullType(type)) return validLiteral(type.ofType, depth);
  if (isListType(type)) {
    return fc
      .array(literalOf(type.ofType, depth + 1), { maxLength: 3 })
      .map((xs) => `[${xs.join(", ")}]`);
  }
  if (isEnumType(type)) return fc.constantFrom(...type.getValues().map((v) => v.name));
  if (isInputObjectType(type)) {
    if (depth > 2) return fc.constant("{}");
    const fields = Object.values(type.getFields());
    return fc
      .subarray(fields, { maxLength: Math.min(3, fields.length) })
      .chain((chosen) =>
        fc
          .tuple(...chosen.map((f) => literalOf(f.type, depth + 1)))
          .map((vs) => `{${chosen.map((f, i) => `${f.name}: ${vs[i]}`).join(", ")}}`),
      );
  }
  switch (type.name) {
    case "Int":
    case "UInt32":
    case "Credits":
    case "Satoshis":
      return fc.oneof(
        fc.integer({ min: -2, max: 600 }).map(String),
        fc.constantFrom("2147483647", "4294967296", "-2147483649"),
      );
    case "Boolean":
      return fc.constantFrom("true", "false");
    case "TxId":
    case "BlockHash":
    case "Hex":
    case "String":
    case "ID":
      return hashParam.map((h) => JSON.stringify(typeof h === "string" ? h : String(h)));
    default:
      return anyLiteral;
  }
}

interface DocShape {
  /** The root's fields, each with a selection: a query against the schema, mostly valid. */
  doc: fc.Arbitrary<string>;
}

/**
 * Documents built from the schema's own types: root fields with arguments (right or wrong type),
 * aliases, nested selections to depth 3 (a leaf asked for a selection and an object without one
 * happen too), then now and then garbled text or a variable declared with a random type.
 */
function documents(schema: GraphQLSchema): DocShape {
  const memo = new Map<string, fc.Arbitrary<string>>();
  const query = schema.getQueryType();
  if (!query) throw new Error("schema without a query type");

  const selectionOf = (type: GraphQLNamedType, depth: number): fc.Arbitrary<string> => {
    if (!isObjectType(type)) return fc.constant("");
    const key = `${type.name}@${depth}`;
    const known = memo.get(key);
    if (known) return known;
    const fields = Object.values(type.getFields());
    const arb = fc
      .subarray(fields, { minLength: 1, maxLength: Math.min(4, fields.length) })
      .chain((chosen) => fc.tuple(...chosen.map((f) => fieldOf(f, depth))))
      .map((parts) => `{ ${parts.join(" ")} }`);
    memo.set(key, arb);
    return arb;
  };

  const fieldOf = (field: GraphQLField<unknown, unknown>, depth: number): fc.Arbitrary<string> => {
    const named = getNamedType(field.type);
    const sub: fc.Arbitrary<string> =
      isObjectType(named) && depth < 3
        ? fc.oneof(
            { weight: 8, arbitrary: selectionOf(named, depth + 1) },
            { weight: 1, arbitrary: fc.constant("") },
          )
        : isObjectType(named)
          ? fc.constant("{ __typename }")
          : fc.oneof(
              { weight: 12, arbitrary: fc.constant("") },
              { weight: 1, arbitrary: fc.constant("{ x }") },
            );
    const args = fc
      .subarray([...field.args], { maxLength: Math.min(4, field.args.length) })
      .chain((chosen) =>
        fc
          .tuple(...chosen.map((a) => literalOf(a.type, 0)))
          .map((vs) => chosen.map((a, i) => `${a.name}: ${vs[i]}`)),
      );
    return fc
      .tuple(args, sub, fc.option(fc.constantFrom("a", "b", "__c"), { nil: undefined }))
      .map(
        ([as, s, alias]) =>
          `${alias ? `${alias}: ` : ""}${field.name}${as.length ? `(${as.join(", ")})` : ""} ${s}`,
      );
  };

  const valid = selectionOf(query, 1);
  const typeNames = Object.keys(schema.getTypeMap()).filter((n) => !n.startsWith("__"));
  const withVariable = fc
    .tuple(valid, fc.constantFrom(...typeNames, "Int!", "[String]", "Nope"), fc.boolean())
    .map(([sel, t, named]) => `query${named ? " Q" : ""}($v: ${t}) ${sel}`);
  const doc = fc.oneof(
    { weight: 6, arbitrary: valid },
    { weight: 2, arbitrary: withVariable },
    { weight: 1, arbitrary: garbled(valid) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        "",
        "{",
        "{ __typename }",
        "mutation { x }",
        "subscription { x }",
        "query A { __typename } query A { __typename }",
        `{ ${"a: __typename ".repeat(40)} }`,
        "{ ".repeat(60),
        `{ ${"block { ".repeat(20)}height${" }".repeat(20)} }`,
        "fragment F on Query { ...F } { ...F }",
      ),
    },
    { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 60 }) },
  );
  return { doc };
}

const unified = documents(schemaOf("gateway.graphql"));
const indexer = documents(schemaOf("indexer.graphql"));

/** A GraphQL-over-HTTP body: query, variables (often the wrong type) and operation name. */
function graphqlBody(doc: fc.Arbitrary<string>): fc.Arbitrary<string> {
  const body = fc.record(
    {
      query: fc.oneof({ weight: 9, arbitrary: doc }, { weight: 1, arbitrary: jsonValue }),
      variables: fc.oneof(
        fc.record({ v: jsonValue }, { requiredKeys: [] }),
        fc.dictionary(fc.string({ maxLength: 5 }), jsonValue, { maxKeys: 3 }),
        jsonValue,
      ),
      operationName: fc.oneof(fc.constantFrom<unknown>("Q", "A", "", null), jsonValue),
    },
    { requiredKeys: ["query"] },
  );
  return fc.oneof(
    { weight: 9, arbitrary: body.map((b) => JSON.stringify(b)) },
    { weight: 1, arbitrary: garbled(body.map((b) => JSON.stringify(b))) },
  );
}

export const unifiedBody = graphqlBody(unified.doc);
export const indexerBody = graphqlBody(indexer.doc);

// ---------------------------------------------------------------------------------------------
// Cases per route, and paths

const JSON_HEADERS = { "content-type": "application/json" };

/**
 * Headers a client may add or get wrong: the content type, the token in `Authorization` instead
 * of the path (`{token}` is filled in as in paths), an Idempotency-Key (a handful of values, so
 * keys repeat with other bodies), a dry run. Mostly just JSON.
 */
const headers: fc.Arbitrary<Record<string, string>> = fc.oneof(
  { weight: 8, arbitrary: fc.constant(JSON_HEADERS) },
  {
    weight: 2,
    arbitrary: fc.record(
      {
        "content-type": fc.constantFrom(
          "application/json",
          "application/json; charset=latin1",
          "text/plain",
          "application/x-www-form-urlencoded",
          "application/graphql",
          "multipart/form-data; boundary=x",
        ),
        authorization: fc.constantFrom(
          "Bearer {token}",
          "Bearer",
          "Basic x",
          `Bearer ${"x".repeat(300)}`,
        ),
        "idempotency-key": fc.constantFrom("k1", "k2", "", "x".repeat(300)),
        "x-dry-run": fc.constantFrom("true", "false", "1"),
      },
      { requiredKeys: [] },
    ),
  },
);

/** The token in the path, or (with an Authorization header) sometimes not. */
const tokenSegment = fc.constantFrom("/{token}", "/{token}", "/{token}", "");

const rpcCase = (kind: "node" | "electrum", method: string): fc.Arbitrary<FuzzCase> =>
  fc.tuple(rpcBody(method), headers, tokenSegment).map(([body, h, token]) => ({
    kind,
    method: "POST",
    path: `/${kind}/{network}${token}`,
    headers: h,
    body,
  }));

export const nodeCase = rpcCase("node", "getrawtransaction");
export const electrumCase = rpcCase("electrum", "blockchain.transaction.get");

/** The unified API also reads GraphQL over GET: the same documents in the query string. */
const unifiedGet: fc.Arbitrary<FuzzCase> = fc
  .tuple(unified.doc, jsonValue)
  .map(([query, variables]) => ({
    kind: "gateway",
    method: "GET",
    path: `/gateway/{network}/{token}?${new URLSearchParams({
      query,
      variables: JSON.stringify(variables) ?? "",
    })}`,
    headers: { accept: "application/graphql-response+json, application/json" },
    body: undefined,
  }));

export const gatewayCase: fc.Arbitrary<FuzzCase> = fc.oneof(
  {
    weight: 9,
    arbitrary: fc.tuple(unifiedBody, headers, tokenSegment).map(([body, h, token]) => ({
      kind: "gateway" as const,
      method: "POST",
      path: `/gateway/{network}${token}`,
      headers: { ...h, accept: "application/graphql-response+json, application/json" },
      body,
    })),
  },
  { weight: 1, arbitrary: unifiedGet },
);

export const graphCase: fc.Arbitrary<FuzzCase> = fc
  .tuple(indexerBody, headers, tokenSegment)
  .map(([body, h, token]) => ({
    kind: "graph",
    method: "POST",
    path: `/graph/{network}${token}`,
    headers: h,
    body,
  }));

/**
 * Large inputs, the kind that fill memory if anything keeps them: documents with one long string
 * literal (up to the body limit and past it), distinct invalid documents beside large variables,
 * long parameters, big `_in` lists. Each text is distinct (a counter in it), as a hostile client
 * would make them, so no cache can answer two alike.
 */
export const largeCase: fc.Arbitrary<FuzzCase> = fc
  .tuple(
    fc.constantFrom("literal", "variables", "param", "in-list"),
    fc.integer({ min: 10_000, max: 1_100_000 }),
    fc.nat(),
  )
  .map(([shape, n, salt]) => {
    const pad = "a".repeat(n);
    switch (shape) {
      case "literal":
        return {
          kind: "gateway",
          method: "POST",
          path: "/gateway/{network}/{token}",
          headers: { ...JSON_HEADERS, accept: "application/graphql-response+json" },
          body: JSON.stringify({ query: `{ transaction(txid: "${salt}${pad}") { txid } }` }),
        };
      case "variables":
        return {
          kind: "gateway",
          method: "POST",
          path: "/gateway/{network}/{token}",
          headers: { ...JSON_HEADERS, accept: "application/graphql-response+json" },
          body: JSON.stringify({ query: `{ nope${salt} }`, variables: { pad } }),
        };
      case "param":
        return {
          kind: "node",
          method: "POST",
          path: "/node/{network}/{token}",
          headers: JSON_HEADERS,
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: salt,
            method: "getrawtransaction",
            params: [pad, true],
          }),
        };
      default:
        return {
          kind: "graph",
          method: "POST",
          path: "/graph/{network}/{token}",
          headers: JSON_HEADERS,
          body: JSON.stringify({
            query: `{ block(where: {height: {_in: [${Array.from({ length: n / 8 }, (_, i) => i + salt).join(",")}]}}) { height } }`,
          }),
        };
    }
  });

// ---------------------------------------------------------------------------------------------
// Hostile shapes

/**
 * Inputs whose cost once grew faster than their size or whose depth overflowed the stack: an
 * object of 50,000 keys in a JSON-RPC body (each key checked against all before it), one key of a
 * megabyte (built a character at a time), nesting past every bound (recursive parsers and walks:
 * 2,000 nested `_and` answered 500). Each is built at any size, so a test can time a family of
 * them; whatever the size, the answer comes within HOSTILE_ANSWER_MS.
 */
export const HOSTILE_SHAPES = [
  "rpc-wide-id",
  "rpc-wide-params",
  "rpc-wide-extra",
  "rpc-long-key",
  "rpc-deep",
  "graphql-nested-and",
  "graphql-nested-list",
  "graphql-nested-and-variable",
  "graphql-nested-list-variable",
  "graphql-deep-selection",
  "graphql-fragment-chain",
  "graphql-fragment-fan",
  "graphql-wide-variables",
] as const;
export type HostileShape = (typeof HOSTILE_SHAPES)[number];

/** Generous for a loaded two-core machine; the shapes took seconds before they were bounded. */
export const HOSTILE_ANSWER_MS = 3_000;

/** `{"k0":0,"k1":1,…}` with `n` keys. */
export function wideObject(n: number): Record<string, number> {
  const o: Record<string, number> = {};
  for (let i = 0; i < n; i++) o[`k${i}`] = i;
  return o;
}

/** `n` `_and` inside one another around one condition, as a GraphQL literal (2n + 2 deep). */
export const nestedAndLiteral = (n: number) =>
  `${"{_and: [".repeat(n)}{height: {_eq: 1}}${"]}".repeat(n)}`;

/** The same as a variable's value. */
export function nestedAndValue(n: number): unknown {
  let v: unknown = { height: { _eq: 1 } };
  for (let i = 0; i < n; i++) v = { _and: [v] };
  return v;
}

/**
 * `n` fragments each spreading the next, on `type` (the unified API's `Query`, the indexer's
 * `query_root`): nesting the text does not show.
 */
export function fragmentChain(n: number, type: string): string {
  const parts = ["{ ...F0 }"];
  for (let i = 0; i < n; i++) parts.push(`fragment F${i} on ${type} { ...F${i + 1} }`);
  parts.push(`fragment F${n} on ${type} { __typename }`);
  return parts.join("\n");
}

/**
 * `n` fragments each spreading the next twice, under a field that does not exist: a walk that
 * follows every spread (the graph route's error paths once did) takes 2^n steps.
 */
export function fragmentFan(n: number, type: string): string {
  const parts = ["{ ...F0 nope }"];
  for (let i = 0; i < n; i++) parts.push(`fragment F${i} on ${type} { ...F${i + 1} ...F${i + 1} }`);
  parts.push(`fragment F${n} on ${type} { __typename }`);
  return parts.join("\n");
}

/** A list `n` deep around one integer, as text (JSON and GraphQL alike). */
export const nestedList = (n: number) => `${"[".repeat(n)}1${"]".repeat(n)}`;

const rpcMethodOf = (route: "node" | "electrum") =>
  route === "node" ? "getrawtransaction" : "blockchain.transaction.get";

function hostileRpcBody(shape: HostileShape, route: "node" | "electrum", size: number, salt = 0) {
  const method = rpcMethodOf(route);
  switch (shape) {
    case "rpc-wide-id":
      return JSON.stringify({ jsonrpc: "2.0", id: wideObject(size), method, params: [HAL_TXID] });
    case "rpc-wide-params":
      return JSON.stringify({ jsonrpc: "2.0", id: salt, method, params: wideObject(size) });
    case "rpc-wide-extra":
      return JSON.stringify({
        jsonrpc: "2.0",
        id: salt,
        method,
        params: [HAL_TXID],
        extra: wideObject(size),
      });
    case "rpc-long-key":
      // Spaced: the canonical reader declines it, and lossless-json's parser reads it.
      return `{ "jsonrpc": "2.0", "id": ${salt}, "method": "${method}", "params": { "${"k".repeat(size)}": 1 } }`;
    default:
      return `{"jsonrpc":"2.0","id":${salt},"method":"${method}","params":[${nestedList(size)}]}`;
  }
}

function hostileGraphQLBody(
  shape: HostileShape,
  route: "graph" | "gateway",
  size: number,
  salt = 0,
): string {
  const height = "block(limit: 1, where: {height: {_in: $h}}) { height }";
  switch (shape) {
    case "graphql-nested-and":
      return JSON.stringify({ query: `{ block(where: ${nestedAndLiteral(size)}) { height } }` });
    case "graphql-nested-list":
      return JSON.stringify({
        query: `{ block(where: {height: {_in: ${nestedList(size)}}}) { height } }`,
      });
    case "graphql-nested-and-variable": {
      // Written out: JSON.stringify recurses, and overflows long before the largest of these.
      const w = `${'{"_and":['.repeat(size)}{"height":{"_eq":1}}${"]}".repeat(size)}`;
      const query = "query ($w: block_bool_exp) { block(limit: 1, where: $w) { height } }";
      return `{"query":${JSON.stringify(query)},"variables":{"w":${w}}}`;
    }
    case "graphql-nested-list-variable":
      return `{"query":"query ($h: [Int!]) { ${height} }","variables":{"h":${nestedList(size)}}}`;
    case "graphql-fragment-chain":
      return JSON.stringify({
        query: fragmentChain(size, route === "graph" ? "query_root" : "Query"),
      });
    case "graphql-fragment-fan":
      return JSON.stringify({
        query: fragmentFan(size, route === "graph" ? "query_root" : "Query"),
      });
    case "graphql-deep-selection":
      return JSON.stringify({ query: `${"{ block ".repeat(size)}${"}".repeat(size)}` });
    default:
      return JSON.stringify({
        query: `query ($h: [Int!]) { ${height} }`,
        variables: { h: [salt], ...wideObject(size) },
      });
  }
}

/**
 * A case of `shape` at `size` (keys, characters or levels) on `route`: the JSON-RPC shapes on
 * node or electrum, the GraphQL ones on graph or gateway. `salt` makes texts of one size differ.
 */
export function hostileCase(
  shape: HostileShape,
  route: RouteKind,
  size: number,
  salt = 0,
): FuzzCase {
  const rpc = shape.startsWith("rpc-");
  const kind: RouteKind = rpc
    ? route === "electrum"
      ? "electrum"
      : "node"
    : route === "gateway"
      ? "gateway"
      : "graph";
  return {
    kind,
    method: "POST",
    path: `/${kind}/{network}/{token}`,
    headers:
      kind === "gateway"
        ? { ...JSON_HEADERS, accept: "application/graphql-response+json, application/json" }
        : JSON_HEADERS,
    body:
      kind === "node" || kind === "electrum"
        ? hostileRpcBody(shape, kind, size, salt)
        : hostileGraphQLBody(shape, kind, size, salt),
    answerMsMax: HOSTILE_ANSWER_MS,
  };
}

/** Sizes up to what fits in the default body limit (1 MiB), by what a shape's size counts. */
export const HOSTILE_SIZES: Record<HostileShape, [number, number]> = {
  "rpc-wide-id": [1_000, 60_000],
  "rpc-wide-params": [1_000, 60_000],
  "rpc-wide-extra": [1_000, 60_000],
  "rpc-long-key": [10_000, 1_000_000],
  "rpc-deep": [100, 400_000],
  "graphql-nested-and": [10, 50_000],
  "graphql-nested-list": [10, 400_000],
  "graphql-nested-and-variable": [10, 50_000],
  "graphql-nested-list-variable": [10, 400_000],
  "graphql-deep-selection": [10, 50_000],
  "graphql-fragment-chain": [10, 30_000],
  "graphql-fragment-fan": [2, 1_000],
  "graphql-wide-variables": [1_000, 50_000],
};

export const hostileShapeCase: fc.Arbitrary<FuzzCase> = fc
  .tuple(fc.constantFrom(...HOSTILE_SHAPES), fc.boolean(), fc.double({ min: 0, max: 1 }), fc.nat())
  .map(([shape, first, at, salt]) => {
    const [min, max] = HOSTILE_SIZES[shape];
    // Spread over orders of magnitude: small sizes are as likely as large ones.
    const size = Math.round(min * (max / min) ** at);
    const route: RouteKind = shape.startsWith("rpc-")
      ? first
        ? "node"
        : "electrum"
      : first
        ? "graph"
        : "gateway";
    return hostileCase(shape, route, size, salt);
  });

/** A byte an HTTP client puts in a request target as it is (printable, or Latin-1). */
const pathChar = fc.oneof(
  fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)),
  fc.integer({ min: 0xa0, max: 0xff }).map((c) => String.fromCharCode(c)),
);

const segment: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "node",
    "electrum",
    "graph",
    "gateway",
    "dashboard",
    "admin",
    "metrics",
    "healthz",
    "{network}",
    "testnet",
    "regtest",
    "mainnet2",
    "{token}",
    "bgt_",
    `bgt_${"A".repeat(43)}`,
    "",
    ".",
    "..",
    "%2e%2e",
    "%00",
    "%2F",
    "%",
    "%zz",
    "%F0%9F%92%A9",
    "%C0%AE",
  ),
  fc.string({ unit: pathChar, maxLength: 12 }),
  fc
    .nat({ max: 8_000 })
    .map((n) => "t".repeat(n)), // long tokens: past any sane URL
  fc
    .array(fc.integer({ min: 0, max: 255 }), { maxLength: 6 })
    .map((bytes) => bytes.map((b) => `%${b.toString(16).padStart(2, "0")}`).join("")),
);

/** A route with mangled segments: unknown backends and networks, odd tokens, percent-escapes. */
export const pathCase: fc.Arbitrary<FuzzCase> = fc
  .tuple(
    fc.array(segment, { minLength: 0, maxLength: 5 }),
    fc.constantFrom("POST", "POST", "GET", "PUT", "DELETE", "OPTIONS"),
    fc.oneof(fc.constant<string | undefined>(undefined), rpcBody("getrawtransaction"), unifiedBody),
    fc.boolean(),
  )
  .map(([segments, method, body, trailing]) => ({
    kind: "path",
    method,
    path: `/${segments.join("/")}${trailing ? "/" : ""}`,
    headers: JSON_HEADERS,
    body: method === "GET" ? undefined : body,
  }));

/** Any of the above, each route about equally, large inputs and hostile shapes now and then. */
export const anyCase: fc.Arbitrary<FuzzCase> = fc.oneof(
  { weight: 10, arbitrary: nodeCase },
  { weight: 10, arbitrary: electrumCase },
  { weight: 10, arbitrary: gatewayCase },
  { weight: 10, arbitrary: graphCase },
  { weight: 10, arbitrary: pathCase },
  { weight: 1, arbitrary: largeCase },
  { weight: 1, arbitrary: hostileShapeCase },
);
