// Built by `npm run build` from src/ (scripts/build.mjs); do not edit.
import {
  ByteLru,
  CONFIRMATIONS_MARK,
  Cancel,
  LruMap,
  auditOnly,
  checkGraphLimits,
  electrumScripthash,
  electrumTransaction,
  electrumTxSource,
  eventPrice,
  fillConfirmations,
  fromGraphQLCode,
  gatewayError,
  graphComplexity,
  graphPrice,
  graphqlCodeOf,
  graphqlFailure,
  httpStatusOf,
  indexerSchema,
  jsonDepthOver,
  listSize,
  meter,
  priceOf,
  refusedArguments,
  rememberFromCore,
  resultScalars,
  selectedField,
  walkSelections
} from "./chunk-X6BKHTWW.js";
import {
  REFUSED_OUTCOMES,
  Refused,
  WEBHOOK_EVENTS,
  addressActivityOf,
  auditInRange,
  confirmationsOf,
  cycleAt,
  cycleContaining,
  endEndpoint,
  feesOf,
  findAccount,
  latestAudit,
  listEndpoints,
  newBlocks,
  recentAttempts,
  registerEndpoint,
  usageByDay,
  usageByMethod,
  usageByOutcome,
  validTargets
} from "./chunk-UUT7BSOM.js";
import {
  DecodeError,
  ScriptPubKeyParts,
  addressToScript,
  formatAmount,
  fromHex,
  isJsonNumber,
  isJsonObject,
  jsonNumber,
  parseAmount,
  parseTransaction,
  scriptToAsm,
  toHex
} from "./chunk-A5KRFPS2.js";
import {
  findToken,
  issueToken,
  listTokens,
  restrictToken,
  revokeToken,
  rotateToken,
  tokenScopeSchema
} from "./chunk-BUEEPKH6.js";
import {
  NETWORK_NAMES
} from "./chunk-M6ZRZKCO.js";

// src/graphql/cost/plugin.ts
import { GraphQLError as GraphQLError5 } from "graphql";

// src/graphql/answers/final-blocks.ts
import {
  getArgumentValues,
  getOperationAST,
  getVariableValues,
  Kind,
  OperationTypeNode
} from "graphql";
var HEIGHTS_MAX = 1e4;
function finalBlocksOf(schema2, document, operationName, rawVariables, data) {
  const operation = getOperationAST(document, operationName);
  if (!operation || operation.operation !== OperationTypeNode.QUERY) return null;
  const queryType = schema2.getQueryType();
  if (!queryType) return null;
  const coerced = getVariableValues(schema2, operation.variableDefinitions ?? [], rawVariables);
  if (coerced.errors) return null;
  const blocks = [];
  for (const selection of operation.selectionSet.selections) {
    if (selection.kind !== Kind.FIELD || selection.directives?.length) return null;
    const name = selection.name.value;
    if (name === "__typename") continue;
    const definition = queryType.getFields()[name];
    if (!definition || name !== "block" && name !== "block_by_pk") return null;
    const args = getArgumentValues(definition, selection, coerced.coerced);
    const answer = data[selection.alias?.value ?? name];
    const found = name === "block_by_pk" ? blockByHash(selection, args, answer) : blockList(selection, args, answer);
    if (!found) return null;
    blocks.push(...found);
  }
  return blocks.length > 0 ? blocks : null;
}
function blockByHash(field, args, row) {
  if (!selectsUnaliased(field, "height") || typeof args.hash !== "string") return null;
  const height = isRecord(row) ? row.height : void 0;
  if (typeof height !== "number") return null;
  return [{ height, blockhash: args.hash.toLowerCase() }];
}
function blockList(field, args, rows) {
  if (!selectsUnaliased(field, "height") || !selectsUnaliased(field, "hash")) return null;
  const heights = heightsNamed(args.where);
  if (!heights || !Array.isArray(rows) || rows.length !== heights.size) return null;
  const blocks = [];
  const seen = /* @__PURE__ */ new Set();
  for (const row of rows) {
    if (!isRecord(row)) return null;
    const { height, hash } = row;
    if (typeof height !== "number" || typeof hash !== "string") return null;
    if (!heights.has(height) || seen.has(height)) return null;
    seen.add(height);
    blocks.push({ height, blockhash: hash.toLowerCase() });
  }
  return blocks;
}
function heightsNamed(where) {
  if (!isRecord(where)) return null;
  const keys = Object.keys(where);
  if (keys.length !== 1 || keys[0] !== "height") return null;
  const comparison = where.height;
  if (!isRecord(comparison)) return null;
  let low = Number.NEGATIVE_INFINITY;
  let high = Number.POSITIVE_INFINITY;
  let listed = null;
  for (const [op, value] of Object.entries(comparison)) {
    if (op === "_in") {
      if (!Array.isArray(value) || !value.every(Number.isInteger)) return null;
      listed = listed ? listed.filter((h) => value.includes(h)) : value;
      continue;
    }
    if (!Number.isInteger(value)) return null;
    const n = value;
    if (op === "_eq") listed = listed ? listed.filter((h) => h === n) : [n];
    else if (op === "_gte") low = Math.max(low, n);
    else if (op === "_gt") low = Math.max(low, n + 1);
    else if (op === "_lte") high = Math.min(high, n);
    else if (op === "_lt") high = Math.min(high, n - 1);
    else return null;
  }
  if (listed) return new Set(listed.filter((h) => h >= low && h <= high && h >= 0));
  low = Math.max(low, 0);
  if (!Number.isFinite(high) || high - low + 1 > HEIGHTS_MAX) return null;
  const heights = /* @__PURE__ */ new Set();
  for (let h = low; h <= high; h++) heights.add(h);
  return heights;
}
function selectsUnaliased(field, name) {
  return (field.selectionSet?.selections ?? []).some(
    (s) => s.kind === Kind.FIELD && s.name.value === name && !s.alias && !s.directives?.length
  );
}
function isRecord(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// src/graphql/answers/final-transactions.ts
import {
  getNamedType,
  getOperationAST as getOperationAST2,
  isObjectType,
  Kind as Kind2,
  OperationTypeNode as OperationTypeNode2
} from "graphql";
var FIXED = {
  Query: /* @__PURE__ */ new Set(["transactions", "transaction"]),
  Transaction: /* @__PURE__ */ new Set([
    "txid",
    "hash",
    "version",
    "size",
    "vsize",
    "weight",
    "locktime",
    "inputs",
    "outputs",
    "blockhash",
    "blocktime",
    "time",
    "hex"
  ]),
  TxInput: /* @__PURE__ */ new Set(["index", "coinbase", "txid", "vout", "scriptSig", "witness", "sequence"]),
  TxOutput: /* @__PURE__ */ new Set(["n", "value", "scriptPubKey"]),
  Amount: /* @__PURE__ */ new Set(["sats", "btc"]),
  ScriptPubKey: /* @__PURE__ */ new Set(["asm", "hex", "desc", "type", "address"]),
  ScriptSig: /* @__PURE__ */ new Set(["asm", "hex"])
};
var INCLUSION = /* @__PURE__ */ new Set(["skip", "include"]);
function fixedTransactionSelection(schema2, document, operationName) {
  const operation = getOperationAST2(document, operationName);
  if (!operation || operation.operation !== OperationTypeNode2.QUERY) return null;
  if (operation.directives?.length) return null;
  const confirmations = /* @__PURE__ */ new Set();
  const fragments = /* @__PURE__ */ new Map();
  for (const definition of document.definitions) {
    if (definition.kind === Kind2.FRAGMENT_DEFINITION) {
      fragments.set(definition.name.value, definition);
    }
  }
  const queryType = schema2.getQueryType();
  if (!queryType) return null;
  const walked = /* @__PURE__ */ new Set();
  const fixed = (typeName, selectionSet) => {
    const allowed = FIXED[typeName];
    const type = schema2.getType(typeName);
    if (!allowed || !isObjectType(type)) return false;
    for (const selection of selectionSet.selections) {
      if (!onlyInclusion(selection.directives)) return false;
      if (selection.kind === Kind2.FIELD) {
        const name = selection.name.value;
        if (name === "__typename") continue;
        if (typeName === "Transaction" && name === "confirmations") {
          confirmations.add(selection.alias?.value ?? name);
          continue;
        }
        if (!allowed.has(name)) return false;
        const field = type.getFields()[name];
        if (!field) return false;
        if (!selection.selectionSet) continue;
        if (!fixed(getNamedType(field.type).name, selection.selectionSet)) return false;
        continue;
      }
      const condition = selection.kind === Kind2.INLINE_FRAGMENT ? selection.typeCondition?.name.value : fragments.get(selection.name.value)?.typeCondition.name.value;
      if (condition !== void 0 && condition !== typeName) return false;
      if (selection.kind === Kind2.INLINE_FRAGMENT) {
        if (!fixed(typeName, selection.selectionSet)) return false;
        continue;
      }
      const fragment = fragments.get(selection.name.value);
      if (!fragment || !onlyInclusion(fragment.directives)) return false;
      const seen = `${fragment.name.value}\0${typeName}`;
      if (walked.has(seen)) continue;
      walked.add(seen);
      if (!fixed(typeName, fragment.selectionSet)) return false;
    }
    return true;
  };
  return fixed(queryType.name, operation.selectionSet) ? { confirmations } : null;
}
function onlyInclusion(directives) {
  return (directives ?? []).every((d) => INCLUSION.has(d.name.value));
}

// src/graphql/answers/keep.ts
var LOOKUPS = /* @__PURE__ */ new Set(["getrawtransaction", "blockchain.transaction.get"]);
function keepIfFinal(ctx, args, result, figures) {
  if (result.errors?.length || !result.data) return;
  if (result.extensions && Object.keys(result.extensions).length > 0) return;
  const data = result.data;
  const found = aboutBlocks(args, data, ctx) ?? aboutTransactions(args, ctx, (keys) => confirmationsTemplate(data, keys));
  if (found) pend(ctx, found, figures, () => JSON.stringify(data));
}
function keepPlannedIfFinal(ctx, args, written2, figures) {
  const found = aboutTransactions(args, ctx, () => written2.template);
  if (found) pend(ctx, found, figures, () => written2.dataText);
}
function pend(ctx, found, figures, text) {
  const { report } = figures;
  ctx.state.pending = {
    answer: {
      dataText: found.template?.dataText ?? text(),
      ...found.template ? { confirmations: found.template.confirmations } : {},
      estimated: figures.estimated,
      estimatedComplexity: figures.estimatedComplexity,
      actual: figures.actual,
      complexity: figures.complexity,
      lines: report.calls,
      answered: found.answered
    },
    about: found.about,
    report,
    creditHeaders: figures.creditHeaders
  };
}
function aboutBlocks(args, data, ctx) {
  const { meter: meter2 } = ctx.state;
  if (meter2.calls.size > 0 || meter2.graph.answered === 0) return null;
  const variables = args.variableValues ?? {};
  const blocks = finalBlocksOf(args.schema, args.document, args.operationName, variables, data);
  return blocks ? { about: { blocks }, answered: meter2.graph.answered } : null;
}
function aboutTransactions(args, ctx, templateOf) {
  const { meter: meter2, rootTransactions } = ctx.state;
  if (!rootTransactions || rootTransactions.size === 0 || meter2.graph.answered > 0) return null;
  let lookups = 0;
  for (const [method, { count }] of meter2.calls) {
    if (!LOOKUPS.has(method)) return null;
    lookups += count;
  }
  const mined = [];
  for (const block of rootTransactions.values()) {
    if (!block) return null;
    mined.push({ blockhash: block.hash.toLowerCase(), confirmations: block.confirmations });
  }
  if (lookups === 0) return null;
  const selection = fixedTransactionSelection(args.schema, args.document, args.operationName);
  if (!selection) return null;
  if (selection.confirmations.size === 0) return { about: { mined }, answered: lookups };
  const template = templateOf(selection.confirmations);
  return template ? { about: { mined }, answered: lookups, template } : null;
}
function confirmationsTemplate(data, keys) {
  const confirmations = [];
  let wellFormed = true;
  const marked = (tx) => {
    if (typeof tx !== "object" || tx === null) return tx;
    const out2 = {};
    for (const [k, v] of Object.entries(tx)) {
      if (!keys.has(k)) out2[k] = v;
      else if (typeof v === "number" && Number.isInteger(v)) {
        confirmations.push(v);
        out2[k] = CONFIRMATIONS_MARK;
      } else wellFormed = false;
    }
    return out2;
  };
  const out = {};
  for (const [k, v] of Object.entries(data)) {
    out[k] = Array.isArray(v) ? v.map(marked) : typeof v === "string" ? v : marked(v);
  }
  return wellFormed ? { dataText: JSON.stringify(out), confirmations } : null;
}

// src/graphql/errors.ts
import { GraphQLError } from "graphql";
function codedError(code, message, extensions = {}) {
  return new GraphQLError(message, { extensions: { code: graphqlCodeOf(code), ...extensions } });
}
function fromGatewayError(error) {
  return codedError(error.code, error.message, error.data ?? {});
}
function fromNodeError(rpc) {
  const code = rpc.code === -5 ? "NOT_FOUND" : rpc.code === -8 || rpc.code === -3 ? "INVALID_PARAMS" : "UPSTREAM_ERROR";
  return codedError(code, rpc.message, { rpcCode: rpc.code });
}
function atThisField(error) {
  if (!(error instanceof GraphQLError)) return error;
  return new GraphQLError(error.message, { extensions: error.extensions });
}

// src/graphql/cost/report.ts
import { GraphQLError as GraphQLError2 } from "graphql";
function costReport(figures) {
  const { estimated, actual, charged, balance, complexity, calls } = figures;
  return {
    estimated,
    actual,
    charged,
    balance,
    ...complexity === null ? {} : { complexity },
    calls
  };
}
function resultText(dataText2, report) {
  return `{"data":${dataText2},"extensions":{"cost":${JSON.stringify(report)}}}`;
}
var COST_MARK = "\0blockgate:cost";
var COST_MARK_JSON = JSON.stringify(COST_MARK);
function writeCost(text, report) {
  const at = text.lastIndexOf(COST_MARK_JSON);
  if (at < 0) return null;
  return `${text.slice(0, at)}${JSON.stringify(report)}${text.slice(at + COST_MARK_JSON.length)}`;
}
function costLines(ctx) {
  const { calls, graph } = ctx.state.meter;
  const lines = [...calls].map(([method, { count, price }]) => ({
    method,
    count,
    unitPrice: price,
    subtotal: count * price
  }));
  if (graph.answered > 0) lines.push(graphLine(ctx, graph.answered, graph.complexity));
  return lines;
}
function graphLine(ctx, answered, complexity) {
  return {
    method: "graph",
    count: answered,
    subtotal: graphPrice(ctx.app.config, ctx.network, complexity)
  };
}
function refusalError(cost) {
  return new GraphQLError2(cost.error.message, { extensions: refusalExtensions(cost) });
}
function refusalExtensions(cost) {
  return {
    ...cost.error.data,
    code: cost.error.code,
    balance: cost.available,
    required: cost.required,
    http: { status: httpStatusOf(cost.error.code) }
  };
}
function refusalReply(cost, headers) {
  const raw = new TextEncoder().encode(refusalText(cost));
  return { status: httpStatusOf(cost.error.code), body: null, raw, headers };
}
function refusalText(cost) {
  const { http: _http, ...extensions } = refusalExtensions(cost);
  return JSON.stringify({ errors: [{ message: cost.error.message, extensions }] });
}

// src/graphql/plugins/document-shape.ts
import {
  BREAK,
  getNamedType as getNamedType2,
  isLeafType,
  Kind as Kind3,
  TokenKind,
  TypeInfo,
  visit,
  visitWithTypeInfo
} from "graphql";
var shapes = /* @__PURE__ */ new WeakMap();
function shapeOf(document) {
  let shape = shapes.get(document);
  if (shape === void 0) {
    shape = readShape(document);
    shapes.set(document, shape);
  }
  return shape;
}
var MARK = {
  [TokenKind.INT]: "i",
  [TokenKind.FLOAT]: "f",
  [TokenKind.STRING]: "s",
  [TokenKind.BLOCK_STRING]: "b"
};
function readShape(document) {
  const start = document.loc?.startToken;
  if (!start) return null;
  const parts = [];
  const literals = [];
  for (let token = start.next; token && token.kind !== TokenKind.EOF; token = token.next) {
    const mark = MARK[token.kind];
    if (mark !== void 0) {
      parts.push(mark);
      literals.push(literalOf(token.kind, token.value));
    } else if (token.kind !== TokenKind.COMMENT) {
      parts.push(token.kind === TokenKind.NAME ? token.value : token.kind);
    }
  }
  return { key: parts.join(" "), literals };
}
function literalOf(kind, value) {
  switch (kind) {
    case TokenKind.INT:
      return { kind: Kind3.INT, value };
    case TokenKind.FLOAT:
      return { kind: Kind3.FLOAT, value };
    default:
      return { kind: Kind3.STRING, value, block: kind === TokenKind.BLOCK_STRING };
  }
}
function literalRule(schema2, document) {
  const shape = shapeOf(document);
  if (!shape) return null;
  const values = shape.literals.map((l) => l.value);
  if (shape.literals.length === 0) return { types: [], open: true, values };
  const byStart = /* @__PURE__ */ new Map();
  const typeInfo = new TypeInfo(schema2);
  const note = (node) => {
    if (node.loc) byStart.set(node.loc.start, typeInfo.getInputType() ?? void 0);
  };
  visit(
    document,
    visitWithTypeInfo(typeInfo, { IntValue: note, FloatValue: note, StringValue: note })
  );
  const types = [];
  for (let token = document.loc?.startToken ?? null; token; token = token.next) {
    if (MARK[token.kind] !== void 0) types.push(byStart.get(token.start));
  }
  const typed = types.length === shape.literals.length && types.every((t) => t !== void 0);
  return { types, open: typed && !repeatsResponseName(document), values };
}
function literalsFit(rule, shape) {
  const { literals } = shape;
  if (literals.length !== rule.types.length) return false;
  if (!rule.open) return literals.every((l, i) => l.value === rule.values[i]);
  for (let i = 0; i < literals.length; i++) {
    const type = getNamedType2(rule.types[i]);
    if (!type || !isLeafType(type)) return false;
    try {
      if (type.parseLiteral(literals[i], void 0) === void 0) return false;
    } catch {
      return false;
    }
  }
  return true;
}
function repeatsResponseName(document) {
  const fragments = /* @__PURE__ */ new Map();
  for (const d of document.definitions) {
    if (d.kind === Kind3.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  }
  const names = (set, into, via) => {
    for (const selection of set.selections) {
      if (selection.kind === Kind3.FIELD) {
        const name = selection.alias?.value ?? selection.name.value;
        if (into.has(name)) return true;
        into.add(name);
      } else if (selection.kind === Kind3.INLINE_FRAGMENT) {
        if (names(selection.selectionSet, into, via)) return true;
      } else {
        const fragment = fragments.get(selection.name.value);
        if (!fragment || via.has(fragment.name.value)) return true;
        via.add(fragment.name.value);
        const repeats2 = names(fragment.selectionSet, into, via);
        via.delete(fragment.name.value);
        if (repeats2) return true;
      }
    }
    return false;
  };
  let repeats = false;
  visit(document, {
    SelectionSet(node) {
      if (names(node, /* @__PURE__ */ new Set(), /* @__PURE__ */ new Set())) {
        repeats = true;
        return BREAK;
      }
      return void 0;
    }
  });
  return repeats;
}

// src/graphql/query-plans/node-plan.ts
import {
  getArgumentValues as getArgumentValues2,
  getNamedType as getNamedType3,
  getNullableType,
  getOperationAST as getOperationAST3,
  getVariableValues as getVariableValues2,
  isLeafType as isLeafType2,
  isListType,
  isNonNullType,
  isObjectType as isObjectType2,
  Kind as Kind4
} from "graphql";

// src/graphql/builder.ts
import SchemaBuilder from "@pothos/core";
var builder = new SchemaBuilder({
  // Fields are non-null unless they say otherwise: the schema tells clients what may be missing.
  defaultFieldNullability: false
});
builder.queryType({});

// src/graphql/types/amount.ts
var AMOUNT_PLAIN_FIELDS = /* @__PURE__ */ new Set(["sats", "btc"]);
var Amount = builder.objectRef("Amount").implement({
  description: "An amount of bitcoin, exact: in satoshis and as Bitcoin Core's 8-decimal BTC string.",
  fields: (t) => ({
    sats: t.field({ type: "Satoshis", resolve: (v) => v }),
    btc: t.field({ type: "BtcAmount", resolve: (v) => formatAmount(v) })
  })
});

// src/graphql/types/script.ts
var SCRIPT_TYPES = {
  pubkey: "Pay to a bare public key",
  pubkeyhash: "P2PKH",
  scripthash: "P2SH",
  multisig: "Bare multisig",
  nulldata: "OP_RETURN data carrier",
  witness_v0_keyhash: "P2WPKH",
  witness_v0_scripthash: "P2WSH",
  witness_v1_taproot: "P2TR",
  anchor: "Pay to anchor (P2A)",
  witness_unknown: "A witness program of an unknown version",
  nonstandard: "None of the above"
};
var ScriptTypeEnum = builder.enumType("ScriptType", {
  description: "Bitcoin Core's script types (the `type` of a scriptPubKey), upper-cased.",
  values: Object.fromEntries(
    Object.entries(SCRIPT_TYPES).map(([core, description]) => [
      core.toUpperCase(),
      { value: core, description }
    ])
  )
});
var SCRIPT_PLAIN_FIELDS = {
  ScriptPubKey: /* @__PURE__ */ new Set(["asm", "hex", "desc", "type", "address"]),
  ScriptSig: /* @__PURE__ */ new Set(["asm", "hex"])
};
var ScriptPubKey = builder.objectRef("ScriptPubKey").implement({
  description: "An output's locking script, decoded as Core's scriptPubKey object.",
  fields: (t) => ({
    asm: t.string({ resolve: (s) => s.asm }),
    hex: t.field({ type: "Hex", resolve: (s) => s.hex }),
    desc: t.string({
      description: "Output descriptor with its checksum.",
      resolve: (s) => s.desc
    }),
    type: t.field({ type: ScriptTypeEnum, resolve: (s) => s.type }),
    address: t.string({
      nullable: true,
      description: "For the network asked about; null where the script has no address (bare pubkey, OP_RETURN\u2026).",
      resolve: (s) => s.address ?? null
    })
  })
});
var ScriptSig = builder.objectRef("ScriptSig").implement({
  description: "An input's unlocking script.",
  fields: (t) => ({
    asm: t.string({
      description: "As Core prints it, signature hash types decoded ([ALL], [NONE|ANYONECANPAY]\u2026).",
      resolve: (s) => scriptToAsm(s, { sighashDecode: true })
    }),
    hex: t.field({ type: "Hex", resolve: (s) => toHex(s) })
  })
});

// src/graphql/types/tx-io.ts
var IO_PLAIN_FIELDS = {
  SpentOutput: /* @__PURE__ */ new Set(["generated", "height", "value", "scriptPubKey"]),
  TxInput: /* @__PURE__ */ new Set([
    "index",
    "coinbase",
    "txid",
    "vout",
    "scriptSig",
    "witness",
    "sequence",
    "prevout"
  ]),
  TxOutput: /* @__PURE__ */ new Set(["n", "value", "scriptPubKey"])
};
var SpentOutput = builder.objectRef("SpentOutput").implement({
  description: "The output an input spends, from the node's undo data.",
  fields: (t) => ({
    generated: t.boolean({
      description: "Created by a coinbase.",
      resolve: (p) => p.prevout.coinbase
    }),
    height: t.int({ resolve: (p) => p.prevout.height }),
    value: t.field({ type: Amount, resolve: (p) => p.prevout.valueSats }),
    scriptPubKey: t.field({
      type: ScriptPubKey,
      resolve: (p) => new ScriptPubKeyParts(p.prevout.scriptPubKey, p.network)
    })
  })
});
var TxIn = builder.objectRef("TxInput").implement({
  description: "A transaction input.",
  fields: (t) => ({
    index: t.int({ resolve: (i) => i.index }),
    coinbase: t.field({
      type: "Hex",
      nullable: true,
      description: "The coinbase script, for a coinbase input (then txid, vout and scriptSig are null).",
      resolve: (i) => i.coinbase ? toHex(i.input.scriptSig) : null
    }),
    txid: t.field({
      type: "TxId",
      nullable: true,
      resolve: (i) => i.coinbase ? null : i.input.prevTxid
    }),
    vout: t.int({ nullable: true, resolve: (i) => i.coinbase ? null : i.input.vout }),
    scriptSig: t.field({
      type: ScriptSig,
      nullable: true,
      resolve: (i) => i.coinbase ? null : i.input.scriptSig
    }),
    witness: t.field({ type: ["Hex"], resolve: (i) => i.input.witness.map(toHex) }),
    sequence: t.field({
      type: "UInt32",
      description: "nSequence.",
      resolve: (i) => i.input.sequence
    }),
    prevout: t.field({
      type: SpentOutput,
      nullable: true,
      description: "Known for mined, non-coinbase transactions (the node's undo data).",
      resolve: (i) => i.prevout ? { prevout: i.prevout, network: i.network } : null
    })
  })
});
var TxOut = builder.objectRef("TxOutput").implement({
  description: "A transaction output.",
  fields: (t) => ({
    n: t.int({ resolve: (o) => o.n }),
    value: t.field({ type: Amount, resolve: (o) => o.output.value }),
    scriptPubKey: t.field({
      type: ScriptPubKey,
      resolve: (o) => {
        if (!o.scripts) return new ScriptPubKeyParts(o.output.scriptPubKey, o.network);
        o.scripts[o.n] ??= new ScriptPubKeyParts(o.output.scriptPubKey, o.network);
        return o.scripts[o.n];
      }
    })
  })
});

// src/graphql/types/transaction.ts
var TransactionStatus = builder.enumType("TransactionStatus", {
  values: {
    MEMPOOL: { description: "Unconfirmed: in the node's mempool." },
    CONFIRMED: { description: "Mined in a block of the active chain." },
    UNKNOWN: { description: "Decoded from bytes the caller holds: no chain position is known." }
  }
});
var TRANSACTION_PLAIN_FIELDS = /* @__PURE__ */ new Set([
  "txid",
  "hash",
  "version",
  "size",
  "vsize",
  "weight",
  "locktime",
  "inputs",
  "outputs",
  "fee",
  "status",
  "confirmations",
  "blockhash",
  "blocktime",
  "time",
  "hex"
]);
var TransactionRef = builder.objectRef("Transaction").implement({
  description: "A Bitcoin transaction, decoded by blockgate's Core-compatible codec.",
  fields: (t) => ({
    txid: t.field({ type: "TxId", resolve: (m) => m.tx.txid }),
    hash: t.field({
      type: "TxId",
      description: "The witness txid (wtxid); equals txid without witness.",
      resolve: (m) => m.tx.wtxid
    }),
    version: t.field({
      type: "UInt32",
      description: "nVersion, unsigned as Core prints it.",
      resolve: (m) => m.tx.version >>> 0
    }),
    size: t.int({ resolve: (m) => m.tx.size }),
    vsize: t.int({ resolve: (m) => m.tx.vsize }),
    weight: t.int({ resolve: (m) => m.tx.weight }),
    locktime: t.field({ type: "UInt32", description: "nLockTime.", resolve: (m) => m.tx.locktime }),
    inputs: t.field({
      type: [TxIn],
      resolve: (m) => m.tx.inputs.map((input, index) => ({
        input,
        index,
        coinbase: m.tx.isCoinbase,
        network: m.network,
        prevout: m.prevouts?.[index]
      }))
    }),
    outputs: t.field({
      type: [TxOut],
      resolve: (m) => m.tx.outputs.map((output, n) => ({ output, n, network: m.network, scripts: m.scripts }))
    }),
    fee: t.field({
      type: Amount,
      nullable: true,
      description: "Inputs minus outputs, when every spent output is known; null for coinbases and mempool transactions.",
      resolve: (m) => {
        if (m.tx.isCoinbase || !m.prevouts || m.prevouts.some((p) => p === void 0)) return null;
        const spent = m.prevouts.reduce((sum, p) => sum + p.valueSats, 0n);
        return spent - m.tx.outputs.reduce((sum, o) => sum + o.value, 0n);
      }
    }),
    status: t.field({
      type: TransactionStatus,
      resolve: (m) => m.origin === "DECODED" ? "UNKNOWN" : m.block ? "CONFIRMED" : "MEMPOOL"
    }),
    confirmations: t.int({ nullable: true, resolve: (m) => m.block?.confirmations ?? null }),
    blockhash: t.field({
      type: "BlockHash",
      nullable: true,
      resolve: (m) => m.block?.hash ?? null
    }),
    blocktime: t.int({
      nullable: true,
      description: "Unix seconds.",
      resolve: (m) => m.block?.blocktime ?? null
    }),
    time: t.int({
      nullable: true,
      description: "Unix seconds.",
      resolve: (m) => m.block?.time ?? null
    }),
    hex: t.field({
      type: "Hex",
      description: "The exact serialized bytes.",
      resolve: (m) => m.tx.hex
    })
  })
});

// src/graphql/types/network.ts
var NetworkEnum = builder.enumType("Network", {
  description: "A Bitcoin network, named as in the route.",
  values: Object.fromEntries(NETWORK_NAMES.map((n) => [n.toUpperCase(), { value: n }]))
});

// src/graphql/types/transaction-queries.ts
var TransactionSource = builder.enumType("TransactionSource", {
  description: "Which backend answers a transaction look-up, and so its price.",
  values: {
    FULL_NODE: { description: "Bitcoin Core (getrawtransaction's price). The default." },
    ELECTRUM: { description: "An Electrum server (blockchain.transaction.get's price)." }
  }
});
var BY_SOURCE = {
  arg: "source",
  methods: { FULL_NODE: "getrawtransaction", ELECTRUM: "blockchain.transaction.get" }
};
var loaderFor = (ctx, source) => source === "ELECTRUM" ? ctx.electrumTransactions : ctx.nodeTransactions;
var notFound = (txid) => codedError("NOT_FOUND", `No such mempool or blockchain transaction: ${txid}`, { txid });
function noteRoot(ctx, found) {
  if (ctx.state.answerKey === void 0) return;
  ctx.state.rootTransactions ??= /* @__PURE__ */ new Map();
  ctx.state.rootTransactions.set(found.tx.txid, found.block);
}
async function transactionByTxid(ctx, txid, source = "FULL_NODE") {
  const found = await loaderFor(ctx, source).load(txid);
  if (found instanceof Error) throw found;
  if (found === null) throw notFound(txid);
  return found;
}
builder.queryFields((t) => ({
  transaction: t.field({
    type: TransactionRef,
    nullable: true,
    description: "A transaction by id (mempool included), from the full node or an Electrum server, priced as that source's look-up. A missing transaction is null with a NOT_FOUND error at its path.",
    args: {
      txid: t.arg({ type: "TxId", required: true }),
      source: t.arg({ type: TransactionSource, defaultValue: "FULL_NODE" })
    },
    extensions: {
      cost: { method: "getrawtransaction", methodByArg: BY_SOURCE }
    },
    resolve: async (_root, { txid, source }, ctx) => {
      const found = await transactionByTxid(ctx, txid, source);
      noteRoot(ctx, found);
      return found;
    }
  }),
  transactions: t.field({
    type: [TransactionRef],
    nullable: { list: false, items: true },
    description: "Several transactions in one request, deduplicated: JSON-RPC batches to the node, or requests pipelined to Electrum. Each is priced as the source's look-up; missing ones are null with an error at their index.",
    args: {
      txids: t.arg({ type: ["TxId"], required: true }),
      source: t.arg({ type: TransactionSource, defaultValue: "FULL_NODE" })
    },
    extensions: {
      cost: {
        method: "getrawtransaction",
        listArg: "txids",
        methodByArg: BY_SOURCE
      }
    },
    resolve: async (_root, { txids, source }, ctx) => {
      const found = await loaderFor(ctx, source).loadMany(txids);
      for (const f of found) if (f !== null && !(f instanceof Error)) noteRoot(ctx, f);
      return found.map((f, i) => f === null ? notFound(txids[i]) : f);
    }
  }),
  decodeTransaction: t.field({
    type: TransactionRef,
    description: "Decodes a raw transaction you hold, locally (as Core's decoderawtransaction). Free.",
    args: {
      hex: t.arg({ type: "Hex", required: true }),
      network: t.arg({
        type: NetworkEnum,
        description: "For addresses; the route's network by default."
      })
    },
    resolve: (_root, { hex, network }, ctx) => {
      try {
        const tx = parseTransaction(Buffer.from(hex, "hex"));
        return {
          tx,
          network: network ?? ctx.network,
          origin: "DECODED",
          block: null,
          prevouts: null
        };
      } catch (err) {
        if (err instanceof DecodeError) throw codedError("INVALID_PARAMS", "TX decode failed");
        throw err;
      }
    }
  })
}));

// src/graphql/query-plans/node-plan.ts
var MARK_TEXT = JSON.stringify(CONFIRMATIONS_MARK);
var PLAIN_FIELDS = {
  Transaction: TRANSACTION_PLAIN_FIELDS,
  ...IO_PLAIN_FIELDS,
  Amount: AMOUNT_PLAIN_FIELDS,
  ...SCRIPT_PLAIN_FIELDS
};
var ROOTS = /* @__PURE__ */ new Set(["transaction", "transactions"]);
var compiled = /* @__PURE__ */ new WeakMap();
function nodePlanOf(schema2, document, operationName) {
  let byName = compiled.get(document);
  if (!byName) {
    byName = /* @__PURE__ */ new Map();
    compiled.set(document, byName);
  }
  const name = operationName ?? "";
  let plan = byName.get(name);
  if (plan === void 0) {
    plan = compileNodePlan(schema2, document, operationName);
    byName.set(name, plan);
  }
  return plan;
}
function compileNodePlan(schema2, document, operationName) {
  if (document.definitions.length !== 1) return null;
  const operation = getOperationAST3(document, operationName);
  const query = schema2.getQueryType();
  const transaction = schema2.getType("Transaction");
  if (!operation || operation.operation !== "query" || !query || !isObjectType2(transaction)) {
    return null;
  }
  if (operation.directives?.length) return null;
  const rootFields = fieldsOf(operation.selectionSet);
  if (!rootFields || rootFields.length === 0) return null;
  const roots = [];
  for (const node of rootFields) {
    const field = query.getFields()[node.name.value];
    if (!ROOTS.has(node.name.value) || !field || !node.selectionSet) return null;
    if (getNamedType3(field.type) !== transaction) return null;
    const written2 = objectWriter(transaction, node.selectionSet, "confirmations");
    if (!written2) return null;
    const write = rememberingWriter(written2);
    roots.push({
      key: (node.alias ?? node.name).value,
      node,
      field,
      list: isListType(getNullableType(field.type)),
      write
    });
  }
  return { operation, roots };
}
function objectWriter(type, set, marked) {
  const selected = fieldsOf(set);
  if (!selected || selected.length === 0) return null;
  const plain = PLAIN_FIELDS[type.name];
  const entries = [];
  for (const sub of selected) {
    if (sub.arguments?.length) return null;
    const prefix = `${entries.length > 0 ? "," : ""}${JSON.stringify((sub.alias ?? sub.name).value)}:`;
    if (sub.name.value === "__typename") {
      if (sub.selectionSet) return null;
      const name = JSON.stringify(type.name);
      entries.push({ prefix, resolve: () => null, write: () => name, mark: false });
      continue;
    }
    const def = type.getFields()[sub.name.value];
    if (!def || !plain?.has(def.name) || !def.resolve) return null;
    const write = valueWriter(def.type, sub.selectionSet);
    if (!write) return null;
    entries.push({
      prefix,
      resolve: def.resolve,
      write,
      mark: def.name === marked
    });
  }
  return (parent, marks) => {
    let text = "{";
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i];
      const resolved = entry.resolve(parent);
      if (resolved instanceof Promise) return null;
      let value;
      if (entry.mark && marks && typeof resolved === "number" && Number.isInteger(resolved)) {
        marks.values.push(resolved);
        value = MARK_TEXT;
      } else {
        if (entry.mark && marks) marks.whole = false;
        value = entry.write(resolved);
      }
      if (value === null) return null;
      text += entry.prefix;
      text += value;
    }
    return `${text}}`;
  };
}
var remembered = /* @__PURE__ */ new WeakMap();
function rememberingWriter(write) {
  return (model, marks) => {
    const { block } = model;
    if (!block || model.prevouts !== null) return write(model, marks);
    const marking = marks !== null;
    const kept = remembered.get(model.tx);
    if (kept !== void 0 && kept.write === write && kept.marking === marking && kept.blockhash === block.hash && kept.origin === model.origin && kept.network === model.network && // Placeholders are filled in with the block's confirmations, which must be a number to be.
    (marking ? Number.isInteger(block.confirmations) : kept.confirmations === block.confirmations)) {
      for (let i = 0; i < kept.marks; i++) marks?.values.push(block.confirmations);
      return kept.text;
    }
    const before = marks?.values.length ?? 0;
    const text = write(model, marks);
    if (text !== null && (marks === null || marks.whole)) {
      Number(text);
      remembered.set(model.tx, {
        write,
        marking,
        blockhash: block.hash,
        confirmations: block.confirmations,
        origin: model.origin,
        network: model.network,
        text,
        marks: (marks?.values.length ?? 0) - before
      });
    }
    return text;
  };
}
function valueWriter(type, set) {
  if (isNonNullType(type)) {
    const inner2 = nullableWriter(type.ofType, set);
    return inner2 && ((value) => value === null || value === void 0 ? null : inner2(value));
  }
  const inner = nullableWriter(type, set);
  return inner && ((value) => value === null || value === void 0 ? "null" : inner(value));
}
function nullableWriter(type, set) {
  if (isListType(type)) {
    const item = valueWriter(type.ofType, set);
    if (!item) return null;
    return (value) => {
      if (!Array.isArray(value)) return null;
      let text = "[";
      for (let i = 0; i < value.length; i++) {
        const written2 = item(value[i]);
        if (written2 === null) return null;
        text += i > 0 ? `,${written2}` : written2;
      }
      return `${text}]`;
    };
  }
  if (isLeafType2(type)) {
    if (set) return null;
    return (value) => {
      const serialized = type.serialize(value);
      return serialized === null || serialized === void 0 ? null : JSON.stringify(serialized);
    };
  }
  return isObjectType2(type) && set ? objectWriter(type, set) : null;
}
function fieldsOf(set) {
  const keys = /* @__PURE__ */ new Set();
  const fields = [];
  for (const s of set.selections) {
    if (s.kind !== Kind4.FIELD || s.directives?.length) return null;
    const key = (s.alias ?? s.name).value;
    if (keys.has(key)) return null;
    keys.add(key);
    fields.push(s);
  }
  return fields;
}
function nodeAsks(schema2, plan, given) {
  const coerced = getVariableValues2(schema2, plan.operation.variableDefinitions ?? [], given);
  if (coerced.errors) return null;
  const asks = [];
  for (const root of plan.roots) {
    let args;
    try {
      args = getArgumentValues2(root.field, root.node, coerced.coerced);
    } catch {
      return null;
    }
    const source = typeof args.source === "string" ? args.source : "FULL_NODE";
    const txids = root.list ? args.txids : [args.txid];
    if (!Array.isArray(txids) || !txids.every((t) => typeof t === "string")) return null;
    asks.push({ txids, source });
  }
  return asks;
}
function loadAsked(ctx, asks) {
  return Promise.all(asks.map((ask2) => loaderFor(ctx, ask2.source).loadMany(ask2.txids)));
}
function nodeData(plan, found, keepable) {
  const marks = keepable ? { values: [], whole: true } : null;
  const text = writeData(plan, found, marks);
  if (text === null) return null;
  if (!marks || marks.values.length === 0) return { dataText: text, template: null };
  const dataText2 = fillConfirmations(text, marks.values);
  if (dataText2 === null) return null;
  return {
    dataText: dataText2,
    template: marks.whole ? { dataText: text, confirmations: marks.values } : null
  };
}
function writeData(plan, found, marks) {
  let text = "{";
  for (const [r, root] of plan.roots.entries()) {
    const models = found[r];
    if (!models || !root.list && models.length !== 1) return null;
    const items = [];
    for (const model of models) {
      if (model === null || model instanceof Error) return null;
      let item;
      try {
        item = root.write(model, marks);
      } catch {
        return null;
      }
      if (item === null) return null;
      items.push(item);
    }
    text += `${r > 0 ? "," : ""}${JSON.stringify(root.key)}:`;
    text += root.list ? `[${items.join(",")}]` : items[0];
  }
  return `${text}}`;
}

// src/graphql/query-plans/passthrough.ts
import { collectFields, collectSubFields } from "@graphql-tools/utils";
import {
  BREAK as BREAK2,
  getOperationAST as getOperationAST4,
  getVariableValues as getVariableValues3,
  isEnumType,
  isListType as isListType2,
  isNonNullType as isNonNullType2,
  isObjectType as isObjectType4,
  isScalarType,
  Kind as Kind6,
  print as print2,
  visit as visit3
} from "graphql";

// src/graphql/indexer.ts
import {
  delegateToSchema,
  Subschema
} from "@graphql-tools/delegate";
import { RenameTypes } from "@graphql-tools/wrap";
import {
  isObjectType as isObjectType3,
  Kind as Kind5,
  OperationTypeNode as OperationTypeNode3,
  print,
  TypeInfo as TypeInfo2,
  visit as visit2,
  visitWithTypeInfo as visitWithTypeInfo2
} from "graphql";

// src/graphql/cost/site-path.ts
function sitePath(path) {
  const keys = [];
  for (let p = path; p; p = p.prev) {
    if (typeof p.key === "string") keys.push(p.key);
  }
  return keys.reverse().join(".");
}

// src/graphql/indexer.ts
var TABLE_TYPES = {
  block: "Block",
  block_transaction: "BlockTransaction"
};
var INDEXER_TYPES = Object.fromEntries(
  Object.entries(TABLE_TYPES).map(([table, unified]) => [unified, table])
);
function indexerTypeOf(unifiedTypeName) {
  return INDEXER_TYPES[unifiedTypeName];
}
var JOINS = {
  BlockTransaction: { transaction: "hash" }
};
var JOIN_KEY_PREFIX = "_join_";
var joinKey = (column2) => `${JOIN_KEY_PREFIX}${column2}`;
var isReservedAlias = (alias) => alias.startsWith(JOIN_KEY_PREFIX);
var JOIN_FIELDS = new Set(Object.values(JOINS).flatMap((joins) => Object.keys(joins)));
function namesAJoin(document) {
  const inSet = (set) => set?.selections.some(
    (s) => s.kind === Kind5.FIELD ? JOIN_FIELDS.has(s.name.value) || inSet(s.selectionSet) : s.kind === Kind5.INLINE_FRAGMENT && inSet(s.selectionSet)
  ) ?? false;
  return document.definitions.some(
    (d) => (d.kind === Kind5.OPERATION_DEFINITION || d.kind === Kind5.FRAGMENT_DEFINITION) && inSet(d.selectionSet)
  );
}
var joinKeys = {
  transformRequest(request, delegationContext) {
    if (!namesAJoin(request.document)) return request;
    const typeInfo = new TypeInfo2(delegationContext.transformedSchema);
    const document = visit2(
      request.document,
      visitWithTypeInfo2(typeInfo, {
        SelectionSet(node) {
          const parent = typeInfo.getParentType();
          const joins = parent ? JOINS[parent.name] : void 0;
          if (!joins) return void 0;
          const keys = /* @__PURE__ */ new Set();
          for (const s of node.selections) {
            if (s.kind === Kind5.FIELD && joins[s.name.value]) keys.add(joins[s.name.value]);
          }
          if (keys.size === 0) return void 0;
          const added = [...keys].map((column2) => ({
            kind: Kind5.FIELD,
            alias: { kind: Kind5.NAME, value: joinKey(column2) },
            name: { kind: Kind5.NAME, value: column2 }
          }));
          return { ...node, selections: [...node.selections, ...added] };
        }
      })
    );
    return { ...request, document };
  }
};
async function executeOnIndexer(request) {
  const ctx = request.context;
  if (!ctx) throw new Error("delegation without the request's context");
  const { failedTrip } = ctx.state;
  ctx.state.failedTrip = void 0;
  const out = failedTrip ?? await indexerTrip(ctx, {
    query: print(request.document),
    variables: request.variables ?? {},
    operationName: request.operationName
  });
  if (!out.ok) return { errors: [fromGatewayError(out.error)] };
  return { data: out.data };
}
async function indexerTrip(ctx, request) {
  const pool = ctx.app.indexers.get(ctx.network);
  if (!pool) {
    return {
      ok: false,
      error: gatewayError("UPSTREAM_UNAVAILABLE", "no indexer for this network")
    };
  }
  const out = await pool.query(request, ctx.app.config.graph.queryTimeoutMs, JSON.parse);
  if (!out.ok) {
    ctx.app.log.warn({ requestId: ctx.requestId, detail: out.error.detail }, out.error.message);
  }
  return out;
}
var indexerSubschema = new Subschema({
  schema: indexerSchema(),
  // The library's Executor type is generic over every result shape; this one answers ours.
  executor: executeOnIndexer,
  batch: true,
  transforms: [new RenameTypes((name) => TABLE_TYPES[name] ?? name), joinKeys]
});
async function delegateToIndexer(ctx, info, rootField, args) {
  const result = await delegateToSchema({
    schema: indexerSubschema,
    operation: OperationTypeNode3.QUERY,
    fieldName: rootField,
    args,
    context: ctx,
    info,
    returnType: info.returnType,
    skipTypeMerging: true
  });
  if (!(result instanceof Error)) {
    const { graph } = ctx.state.meter;
    graph.answered += 1;
    graph.complexity += ctx.state.graphSites.get(sitePath(info.path)) ?? 0;
  }
  return result;
}
function indexerColumn(unifiedTypeName, fieldName) {
  const table = indexerTypeOf(unifiedTypeName);
  const type = table ? indexerSchema().getType(table) : void 0;
  return isObjectType3(type) ? type.getFields()[fieldName] : void 0;
}
function indexerRootField(rootField) {
  const field = indexerSchema().getQueryType()?.getFields()[rootField];
  if (!field) throw new Error(`the indexer schema has no root field ${rootField}`);
  return field;
}

// src/graphql/query-plans/passthrough.ts
function passthroughOf(schema2, document, operationName, given) {
  const operation = getOperationAST4(document, operationName);
  if (!operation) return null;
  const coerced = getVariableValues3(schema2, operation.variableDefinitions ?? [], given);
  if (coerced.errors) return null;
  return passthroughFor(schema2, document, operationName, coerced.coerced);
}
var compiled2 = /* @__PURE__ */ new WeakMap();
var VARIANTS_MAX = 16;
function passthroughFor(schema2, document, operationName, variables) {
  let byName = compiled2.get(document);
  if (!byName) {
    byName = /* @__PURE__ */ new Map();
    compiled2.set(document, byName);
  }
  const name = operationName ?? "";
  let variants = byName.get(name);
  if (!variants) {
    variants = new LruMap(VARIANTS_MAX);
    byName.set(name, variants);
  }
  const read = conditionsOf(document);
  if (read === null) return null;
  const key = read.length === 0 ? "" : JSON.stringify(read.map((v) => variables[v] ?? null));
  let passthrough = variants.get(key);
  if (passthrough === void 0) {
    passthrough = compilePassthrough(schema2, document, operationName, variables);
    variants.set(key, passthrough);
  }
  return passthrough;
}
function compilePassthrough(schema2, document, operationName, variables = {}) {
  const operations = document.definitions.filter(
    (d) => d.kind === Kind6.OPERATION_DEFINITION
  );
  const [operation] = operations;
  if (operations.length !== 1 || !operation || operation.operation !== "query") return null;
  if (operationName && operation.name?.value !== operationName) return null;
  const query = schema2.getQueryType();
  if (!query || conditionsOf(document) === null) return null;
  const fragments = {};
  for (const d of document.definitions) {
    if (d.kind === Kind6.FRAGMENT_DEFINITION) fragments[d.name.value] = d;
    else if (d.kind !== Kind6.OPERATION_DEFINITION) return null;
  }
  const { fields, patches } = collectFields(
    schema2,
    fragments,
    variables,
    query,
    operation.selectionSet
  );
  if (patches.length > 0 || fields.size === 0) return null;
  const walk = { schema: schema2, fragments, variables, renamesTypes: false };
  const shape = objectShape(walk, query, INDEXER_ROOT, fields, true, (name, field) => {
    const site = field.extensions.indexer;
    return site?.rootField === name;
  });
  if (!shape) return null;
  const renamed2 = renameTypeConditions(document);
  if (!renamed2) return null;
  return {
    indexerQuery: print2(renamed2),
    operationName: operation.name?.value,
    variableDefinitions: operation.variableDefinitions ?? [],
    shape,
    renamesTypes: walk.renamesTypes,
    sites: shape.fields.filter((f) => f.kind !== "typename").length
  };
}
var INDEXER_ROOT = indexerSchema().getQueryType()?.name ?? "query_root";
function shapeOf2(walk, type, nodes) {
  const nonNull = isNonNullType2(type);
  const inner = nonNull ? type.ofType : type;
  if (isListType2(inner)) {
    const of = shapeOf2(walk, inner.ofType, nodes);
    return of ? { kind: "list", nonNull, of } : null;
  }
  if (isScalarType(inner) || isEnumType(inner)) {
    return { kind: "leaf", nonNull, serialize: (v) => inner.serialize(v) };
  }
  const table = isObjectType4(inner) ? indexerTypeOf(inner.name) : void 0;
  if (!isObjectType4(inner) || table === void 0) return null;
  const { fields, patches } = collectSubFields(
    walk.schema,
    walk.fragments,
    walk.variables,
    inner,
    nodes
  );
  if (patches.length > 0) return null;
  return objectShape(
    walk,
    inner,
    table,
    fields,
    nonNull,
    (name) => Boolean(indexerColumn(inner.name, name))
  );
}
function objectShape(walk, type, indexerName, fields, nonNull, allowed) {
  const keys = [];
  const shapes2 = [];
  for (const [key, nodes] of fields) {
    const name = nodes[0].name.value;
    let shape = null;
    if (name === "__typename") {
      walk.renamesTypes = true;
      shape = { kind: "typename", nonNull: true, from: indexerName, to: type.name };
    } else {
      const field = type.getFields()[name];
      shape = field && allowed(name, field) ? shapeOf2(walk, field.type, nodes) : null;
    }
    if (!shape) return null;
    keys.push(key);
    shapes2.push(shape);
  }
  return { kind: "object", nonNull, keys, fields: shapes2 };
}
function conditionsOf(document) {
  let found = conditions.get(document);
  if (found === void 0) {
    found = readConditions(document);
    conditions.set(document, found);
  }
  return found;
}
var conditions = /* @__PURE__ */ new WeakMap();
function readConditions(document) {
  const variables = [];
  let other = false;
  visit3(document, {
    Directive(node, _key, _parent, _path, ancestors) {
      const owner = ancestors[ancestors.length - 1];
      const on = owner && !Array.isArray(owner) ? owner.kind : void 0;
      const evaluated = on === Kind6.FIELD || on === Kind6.FRAGMENT_SPREAD || on === Kind6.INLINE_FRAGMENT;
      if (!evaluated || node.name.value !== "skip" && node.name.value !== "include") {
        other = true;
        return BREAK2;
      }
      for (const arg of node.arguments ?? []) {
        if (arg.value.kind === Kind6.VARIABLE) variables.push(arg.value.name.value);
      }
      return void 0;
    }
  });
  return other ? null : variables;
}
function renameTypeConditions(document) {
  let unknown = false;
  const rename = (node) => {
    const table = indexerTypeOf(node.name.value);
    if (table === void 0) unknown = true;
    return { ...node, name: { ...node.name, value: table ?? node.name.value } };
  };
  const out = visit3(document, {
    FragmentDefinition: (node) => ({ ...node, typeCondition: rename(node.typeCondition) }),
    InlineFragment: (node) => node.typeCondition ? { ...node, typeCondition: rename(node.typeCondition) } : void 0
  });
  return unknown ? null : out;
}
function fits(value, shape, names = "indexer") {
  if (value === null) return !shape.nonNull;
  switch (shape.kind) {
    case "typename":
      return value === (names === "indexer" ? shape.from : shape.to);
    case "leaf":
      try {
        return value !== void 0 && Object.is(shape.serialize(value), value);
      } catch {
        return false;
      }
    case "list":
      return Array.isArray(value) && value.every((item) => fits(item, shape.of, names));
    case "object": {
      if (typeof value !== "object" || value === void 0 || Array.isArray(value)) return false;
      const record = value;
      let i = 0;
      for (const key in record) {
        if (key !== shape.keys[i] || !fits(record[key], shape.fields[i], names)) {
          return false;
        }
        i++;
      }
      return i === shape.keys.length;
    }
  }
}
function indexerRequest(passthrough, given) {
  const variables = {};
  for (const definition of passthrough.variableDefinitions) {
    const name = definition.variable.name.value;
    if (Object.hasOwn(given, name)) variables[name] = given[name];
  }
  return { query: passthrough.indexerQuery, variables, operationName: passthrough.operationName };
}
function dataText(data, passthrough) {
  return JSON.stringify(passthrough.renamesTypes ? renamed(data, passthrough.shape) : data);
}
function renamed(value, shape) {
  if (value === null) return null;
  switch (shape.kind) {
    case "typename":
      return shape.to;
    case "leaf":
      return value;
    case "list":
      return value.map((item) => renamed(item, shape.of));
    case "object": {
      const record = value;
      const out = {};
      shape.keys.forEach((key, i) => {
        out[key] = renamed(record[key], shape.fields[i]);
      });
      return out;
    }
  }
}

// src/graphql/request-key.ts
function replyKey(network, req) {
  if (req.method !== "POST") return null;
  const { headers } = req;
  const type = headers["content-type"] ?? "";
  if (!type.startsWith("application/json") || headers["x-dry-run"] !== void 0) return null;
  return `${network}\0${headers.accept ?? ""}\0${headers.origin ?? ""}\0${type}`;
}

// src/graphql/query-plans/plans.ts
var LEARNINGS_MAX = 3;
var PLANNED_QUERY_MAX = 16 * 1024;
var Plans = class {
  plans;
  /**
   * Keys executed and not planned, with the times learning failed: a document is learnt on its
   * second execution, so the plans are not churned by documents sent once (most of a hostile or
   * exploratory stream); one whose learning keeps failing stops being tried after LEARNINGS_MAX.
   */
  seen;
  /** For benches and tests: requests served by a plan, and planned ones the executor answered. */
  stats = { learnt: 0, served: 0, executed: 0 };
  constructor(entriesMax) {
    this.plans = entriesMax > 0 ? new LruMap(entriesMax) : null;
    this.seen = entriesMax > 0 ? new LruMap(entriesMax) : null;
  }
  /** Whether an execution of `key` should be learnt from: true from its second one on. */
  worthLearning(key) {
    if (!this.seen) return false;
    const failed = this.seen.get(key);
    if (failed === void 0) this.seen.set(key, 0);
    return failed !== void 0 && failed < LEARNINGS_MAX;
  }
  /**
   * A plan whose indexer answered in a shape it cannot write (the executor answered instead, at
   * the cost of a second trip): dropped, so the next requests go to Yoga and do not pay it again.
   */
  forget(key) {
    if (this.plans?.delete(key)) this.seen?.set(key, LEARNINGS_MAX);
  }
  get enabled() {
    return this.plans !== null;
  }
  get(key) {
    return this.plans?.get(key);
  }
  /** What learning `key` came to: a plan, or null when the execution did not prove one. */
  learnt(key, plan) {
    if (!plan) {
      this.seen?.set(key, (this.seen.get(key) ?? 0) + 1);
      return;
    }
    if (!this.plans) return;
    this.seen?.delete(key);
    this.plans.set(key, plan);
    this.stats.learnt += 1;
  }
};
var plansByApp = /* @__PURE__ */ new WeakMap();
function plansOf(app) {
  let plans = plansByApp.get(app);
  if (!plans) {
    plans = new Plans(app.config.graphql.queryPlansMax);
    plansByApp.set(app, plans);
  }
  return plans;
}
function planRequest(app, network, req, body, documents) {
  const replied = replyKey(network, req);
  if (replied === null || !plansOf(app).enabled) return null;
  if (jsonDepthOver(body, app.config.server.jsonDepthMax)) return null;
  let parsed;
  try {
    parsed = JSON.parse(body);
  } catch {
    return null;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return null;
  const { query, variables, operationName, ...rest } = parsed;
  if (Object.keys(rest).length > 0) return null;
  if (typeof query !== "string" || query.length > PLANNED_QUERY_MAX) return null;
  if (variables !== void 0 && variables !== null) {
    if (typeof variables !== "object" || Array.isArray(variables)) return null;
  }
  if (operationName !== void 0 && operationName !== null) {
    if (typeof operationName !== "string" || operationName === "") return null;
  }
  const name = operationName ?? void 0;
  const document = documents.parsed(query, app.config.graphql.tokensMax);
  const shape = document && shapeOf(document);
  if (!document || !shape) return null;
  return {
    key: `${replied}\0${name ?? ""}\0${shape.key}`,
    document,
    shape,
    variables: variables ?? {},
    operationName: name
  };
}

// src/graphql/query-plans/learn.ts
function planCandidate(ctx, args, result, estimate, figures) {
  if (result.errors?.length || !result.data) return void 0;
  if (result.extensions && Object.keys(result.extensions).length > 0) return void 0;
  const { meter: meter2 } = ctx.state;
  if (meter2.calls.size > 0 || meter2.cacheHits > 0 || !estimate.graph) return void 0;
  if (estimate.items.length > 0) return void 0;
  const operationName = args.operationName ?? void 0;
  const variables = args.variableValues ?? {};
  const passthrough = passthroughOf(args.schema, args.document, operationName, variables);
  if (!passthrough || !fits(result.data, passthrough.shape, "unified")) return void 0;
  const { complexity } = estimate.graph;
  if (meter2.graph.answered !== passthrough.sites || figures.complexity !== complexity || figures.actual !== graphPrice(ctx.app.config, ctx.network, complexity)) {
    return void 0;
  }
  return {
    schema: args.schema,
    document: args.document,
    operationName,
    variables,
    dataText: JSON.stringify(result.data),
    report: figures.report,
    creditHeaders: figures.creditHeaders
  };
}
async function nodePlanCandidate(ctx, args, result, figures) {
  if (result.errors?.length || !result.data) return void 0;
  if (result.extensions && Object.keys(result.extensions).length > 0) return void 0;
  const { meter: meter2 } = ctx.state;
  if (meter2.graph.answered > 0) return void 0;
  const operationName = args.operationName ?? void 0;
  const variables = args.variableValues ?? {};
  const plan = nodePlanOf(args.schema, args.document, operationName);
  const asks = plan && nodeAsks(args.schema, plan, variables);
  if (!plan || !asks) return void 0;
  const metered = () => [...meter2.calls.values()].reduce((n, c) => n + c.count, 0);
  const before = metered();
  const text = nodeData(plan, await loadAsked(ctx, asks), false)?.dataText ?? null;
  if (text === null || metered() !== before || text !== JSON.stringify(result.data)) {
    return void 0;
  }
  return {
    schema: args.schema,
    document: args.document,
    operationName,
    variables,
    dataText: text,
    report: figures.report,
    creditHeaders: figures.creditHeaders
  };
}
function learnPlan(ctx, request, candidate, reply) {
  const plans = plansOf(ctx.app);
  if (plans.get(request.key)) return;
  const same = reply.status === 200 && decoder.decode(reply.raw) === resultText(candidate.dataText, candidate.report);
  const headers = Object.fromEntries(
    Object.entries(reply.headers).filter(([name]) => !candidate.creditHeaders.includes(name))
  );
  const literals = same ? literalRule(candidate.schema, candidate.document) : null;
  plans.learnt(
    request.key,
    literals ? { operationName: candidate.operationName, literals, headers } : null
  );
}
var decoder = new TextDecoder();

// src/graphql/cost/figures.ts
function executedFigures(ctx, estimate, result) {
  const { calls, graph, cacheHits } = ctx.state.meter;
  let actual = 0;
  for (const { count, price } of calls.values()) actual += count * price;
  if (graph.answered > 0) actual += graphPrice(ctx.app.config, ctx.network, graph.complexity);
  const complexity = estimate.graph ? graph.complexity : null;
  const outcome = {
    kind: "answered",
    // Errors and no data: graphql-js refused the request (variables it could not coerce) before
    // any resolver ran, as validation would have.
    outcome: !result.errors?.length ? "ok" : result.data === void 0 ? "rejected" : "upstream_error",
    ...firstCode(result),
    httpStatus: 200,
    chargedCc: actual,
    complexity,
    cacheHits
  };
  return { outcome, actual, complexity };
}
function firstCode(result) {
  const first = result.errors?.[0];
  if (!first) return { errorCode: null };
  const rpcCode = first.extensions?.rpcCode;
  return {
    errorCode: fromGraphQLCode(first.extensions?.code),
    upstreamCode: typeof rpcCode === "number" ? String(rpcCode) : null
  };
}

// src/graphql/cost/estimate.ts
import {
  GraphQLError as GraphQLError3,
  getArgumentValues as getArgumentValues3,
  getNullableType as getNullableType2,
  getOperationAST as getOperationAST5,
  getVariableValues as getVariableValues4,
  isListType as isListType3
} from "graphql";
var POSITION_FIELDS = /* @__PURE__ */ new Set([
  "status",
  "confirmations",
  "blockhash",
  "blocktime",
  "time",
  "block",
  "merkleProof"
]);
function estimateCost(schema2, document, operationName, given, opts) {
  const operation = getOperationAST5(document, operationName);
  if (!operation)
    return new GraphQLError3("no operation to run", { extensions: { code: "BAD_USER_INPUT" } });
  const coerced = getVariableValues4(schema2, operation.variableDefinitions ?? [], given);
  const variables = coerced.coerced ?? given;
  const root = schema2.getRootType(operation.operation);
  if (!root)
    return new GraphQLError3(`no ${operation.operation} type`, {
      extensions: { code: "BAD_USER_INPUT" }
    });
  const limits = opts.graph.limits;
  const items = [];
  const sites = /* @__PURE__ */ new Map();
  let wantsPrevouts = false;
  let wantsPosition = false;
  const visit4 = (f, at) => {
    const { node: selection, def: field, parentType: parent } = f;
    const name = selection.name.value;
    if (name === "fee" || name === "prevout") wantsPrevouts = true;
    if (parent.name === "Transaction" && POSITION_FIELDS.has(name)) wantsPosition = true;
    if (!field) return void 0;
    const { multiplier, scope } = at;
    const key = `${at.path}${at.path ? "." : ""}${f.responseKey}`;
    const list = isListType3(getNullableType2(field.type));
    const site = field.extensions?.indexer;
    const table = scope ? indexerTypeOf(parent.name) : void 0;
    const indexerDef = site ? indexerRootField(site.rootField) : table ? indexerColumn(parent.name, name) : void 0;
    if (indexerDef) {
      if (table && selection.alias && isReservedAlias(selection.alias.value)) {
        throw codedError(
          "INVALID_PARAMS",
          `${key}: aliases beginning with _join_ are kept for the gateway's join keys`
        );
      }
      if (selection.arguments?.length) {
        const refused = refusedArguments(
          indexerSchema(),
          indexerDef,
          selection,
          variables,
          `$.selectionSet.${key.replaceAll(".", ".selectionSet.")}`
        );
        if (refused) {
          throw codedError("INVALID_PARAMS", refused.message, { at: refused.extensions.path });
        }
      }
      const at2 = site ? { name: site.rootField, parentType: "query_root", depth: 1 } : { name, parentType: table, depth: scope.depth + 1 };
      const node = selectedField(f, { ...at2, path: key, list });
      if (site) sites.set(key, { root: node, rootField: site.rootField, count: multiplier });
      else scope.children.push(node);
      node.args = getArgumentValues3(field, selection, variables);
      const inner = node.list ? multiplier * listSize(node, limits.listSizeDefault) : multiplier;
      return { path: key, multiplier: inner, scope: node };
    }
    const cost = field.extensions?.cost;
    let count = 1;
    if (cost) {
      const args = getArgumentValues3(field, selection, variables);
      if (cost.listArg) {
        const asked = args[cost.listArg];
        count = Array.isArray(asked) ? asked.length : 1;
      }
      if (cost.countArg) {
        const asked = args[cost.countArg.arg];
        count = typeof asked === "number" ? Math.max(0, asked) : cost.countArg.default;
      }
      if (count * multiplier > opts.listItemsMax) {
        throw codedError(
          "LIMIT_EXCEEDED",
          `${key}: ${count * multiplier} items asked, at most ${opts.listItemsMax} in one request`,
          { limit: opts.listItemsMax }
        );
      }
      const method = cost.methodByArg ? cost.methodByArg.methods[String(args[cost.methodByArg.arg])] ?? cost.method : cost.method;
      const unitPrice = opts.price(method);
      items.push({
        path: key,
        method,
        count: count * multiplier,
        unitPrice,
        subtotal: unitPrice * count * multiplier
      });
      const also = cost.alsoWhenArg;
      if (also && args[also.arg] !== void 0 && args[also.arg] !== null) {
        const alsoPrice = opts.price(also.method);
        items.push({
          path: key,
          method: also.method,
          count: multiplier,
          unitPrice: alsoPrice,
          subtotal: alsoPrice * multiplier
        });
      }
    }
    return { path: key, multiplier: list ? multiplier * count : multiplier, scope: void 0 };
  };
  let graph = null;
  try {
    const start = { path: "", multiplier: 1, scope: void 0 };
    walkSelections(
      schema2,
      document,
      variables,
      { type: root, selectionSet: operation.selectionSet },
      start,
      visit4
    );
    if (sites.size > 0) graph = graphEstimate(sites, opts.graph);
  } catch (err) {
    if (err instanceof GraphQLError3) return err;
    throw err;
  }
  const perCall = items.reduce((sum, i) => sum + i.subtotal, 0);
  return { total: perCall + (graph?.price ?? 0), items, graph, wantsPrevouts, wantsPosition };
}
function graphEstimate(sites, graph) {
  const { limits } = graph;
  const overLimit = checkGraphLimits(
    [...sites.values()].map((s) => s.root),
    limits
  );
  if (overLimit) {
    throw codedError("LIMIT_EXCEEDED", overLimit.message, {
      limit: overLimit.extensions.code,
      at: overLimit.extensions.path
    });
  }
  const costs = [...sites].map(([path, s]) => ({
    path,
    rootField: s.rootField,
    count: s.count,
    complexity: graphComplexity([s.root], limits)
  }));
  const complexity = costs.reduce((sum, s) => sum + s.count * s.complexity, 0);
  if (complexity > limits.complexityMax) {
    throw codedError(
      "LIMIT_EXCEEDED",
      `the indexer's share of the query has complexity ${complexity}; the limit is ${limits.complexityMax}: ask for fewer rows`,
      { limit: "complexity-limit-exceeded" }
    );
  }
  return { complexity, price: graph.price(complexity), sites: costs };
}

// src/graphql/cost/estimate-memo.ts
import { GraphQLError as GraphQLError4, getOperationAST as getOperationAST6 } from "graphql";
var ESTIMATES_MAX = 512;
var VARIABLES_KEY_MAX = 32 * 1024;
var EstimateMemo = class {
  constructor(entriesMax = ESTIMATES_MAX, variablesKeyMax = VARIABLES_KEY_MAX) {
    this.entriesMax = entriesMax;
    this.variablesKeyMax = variablesKeyMax;
  }
  entriesMax;
  variablesKeyMax;
  bySchema = /* @__PURE__ */ new WeakMap();
  documentIds = /* @__PURE__ */ new WeakMap();
  documentsSeen = 0;
  /** The estimate for this request, from the memo or from `compute` (kept when it is one). */
  estimate(schema2, document, operationName, variables, network, compute) {
    const key = this.keyOf(document, operationName, variables, network);
    if (key === void 0) return compute();
    let memo = this.bySchema.get(schema2);
    if (!memo) {
      memo = new LruMap(this.entriesMax);
      this.bySchema.set(schema2, memo);
    }
    const hit = memo.get(key);
    if (hit) return hit;
    const computed = compute();
    if (!(computed instanceof GraphQLError4)) memo.set(key, deepFreeze(computed));
    return computed;
  }
  /** Entries held for `schema` (tests: the memo stays bounded). */
  sizeFor(schema2) {
    return this.bySchema.get(schema2)?.size ?? 0;
  }
  keyOf(document, operationName, variables, network) {
    const operation = getOperationAST6(document, operationName);
    if (!operation) return void 0;
    let id = this.documentIds.get(document);
    if (id === void 0) {
      id = ++this.documentsSeen;
      this.documentIds.set(document, id);
    }
    const values = (operation.variableDefinitions ?? []).map((v) => {
      const name = v.variable.name.value;
      return Object.hasOwn(variables, name) ? [variables[name]] : 0;
    });
    const variablesKey = values.length === 0 ? "" : JSON.stringify(values);
    if (variablesKey.length > this.variablesKeyMax) return void 0;
    return `${id}\0${operationName ?? ""}\0${network}\0${variablesKey}`;
  }
};
function deepFreeze(value) {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

// src/graphql/cost/request-estimate.ts
var memos = /* @__PURE__ */ new WeakMap();
function requestEstimate(app, network, schema2, document, operationName, variables) {
  let memo = memos.get(app);
  if (!memo) {
    memo = new EstimateMemo();
    memos.set(app, memo);
  }
  return memo.estimate(
    schema2,
    document,
    operationName,
    variables,
    network,
    () => estimateCost(schema2, document, operationName, variables, {
      price: (method) => priceOf(app.config, method, network) ?? 0,
      listItemsMax: app.config.graphql.listItemsMax,
      graph: {
        limits: app.config.graph,
        price: (complexity) => graphPrice(app.config, network, complexity)
      }
    })
  );
}

// src/graphql/cost/plugin.ts
var METHOD = "graphql";
function costPlugin() {
  const metered = /* @__PURE__ */ new WeakMap();
  const refusals = /* @__PURE__ */ new WeakMap();
  return {
    async onExecute({ args, executeFn, setExecuteFn, setResultAndStopExecution }) {
      const ctx = args.contextValue;
      const { app } = ctx;
      const variables = args.variableValues ?? {};
      const estimate = requestEstimate(
        app,
        ctx.network,
        args.schema,
        args.document,
        args.operationName,
        variables
      );
      const { reserved } = ctx.state;
      if (estimate instanceof GraphQLError5 && reserved) {
        reserved.figures = {
          outcome: {
            kind: "answered",
            outcome: "rejected",
            errorCode: fromGraphQLCode(estimate.extensions.code),
            httpStatus: 200,
            chargedCc: 0
          },
          actual: 0,
          complexity: null
        };
        metered.set(ctx.state, {});
        setResultAndStopExecution({ errors: [estimate], extensions: { cost: COST_MARK } });
        return;
      }
      if (estimate instanceof GraphQLError5) {
        await auditOnly(ctx, [
          {
            method: METHOD,
            outcome: "rejected",
            errorCode: fromGraphQLCode(estimate.extensions.code),
            httpStatus: 200
          }
        ]);
        metered.set(ctx.state, {});
        setResultAndStopExecution({ errors: [estimate] });
        return;
      }
      ctx.state.wantsPrevouts = estimate.wantsPrevouts;
      ctx.state.wantsPosition = estimate.wantsPosition;
      for (const site of estimate.graph?.sites ?? []) {
        ctx.state.graphSites.set(site.path, site.complexity);
      }
      for (const item of estimate.items) {
        ctx.state.joinBudget.set(
          item.path,
          (ctx.state.joinBudget.get(item.path) ?? 0) + item.count
        );
      }
      const estimatedComplexity = estimate.graph?.complexity ?? null;
      if (ctx.dryRun) {
        const audited = await auditOnly(ctx, [
          {
            method: METHOD,
            // Not an error: an outcome of its own, so usage tells estimates from calls.
            outcome: "dry_run",
            httpStatus: 200,
            estimatedCc: estimate.total,
            complexity: estimatedComplexity
          }
        ]);
        metered.set(ctx.state, {});
        setResultAndStopExecution({
          data: null,
          extensions: {
            cost: {
              dryRun: true,
              estimated: estimate.total,
              balance: audited.available,
              // Per-call items, then one line per indexer site; the indexer's share is priced once.
              breakdown: [
                ...estimate.items,
                ...(estimate.graph?.sites ?? []).map((site) => ({ ...site, method: "graph" }))
              ],
              ...estimate.graph ? {
                graph: {
                  complexity: estimate.graph.complexity,
                  price: estimate.graph.price
                }
              } : {}
            }
          }
        });
        return;
      }
      if (reserved) {
        setExecuteFn(async (executeArgs) => {
          const result = await executeFn(executeArgs);
          if (!isSingleResult(result)) return result;
          reserved.figures = executedFigures(ctx, estimate, result);
          metered.set(ctx.state, {});
          return { ...result, extensions: { ...result.extensions, cost: COST_MARK } };
        });
        return;
      }
      setExecuteFn(async (executeArgs) => {
        const cost = await meter(ctx, {
          calls: [
            {
              kind: "priced",
              method: METHOD,
              price: estimate.total,
              complexity: estimatedComplexity
            }
          ],
          execute: async () => {
            const result2 = await executeFn(executeArgs);
            if (!isSingleResult(result2)) {
              const error = gatewayError("INTERNAL", "streamed results are not metered");
              return { value: null, outcomes: [{ kind: "failed", error }] };
            }
            const { outcome, actual: actual2, complexity: complexity2 } = executedFigures(ctx, estimate, result2);
            return { value: { result: result2, actual: actual2, complexity: complexity2 }, outcomes: [outcome] };
          }
        });
        metered.set(ctx.state, cost.headers);
        if (!cost.ok) return { errors: [refusalError(cost)] };
        if (cost.value === null) return { errors: [codedError("INTERNAL", "internal error")] };
        const { result, actual, complexity } = cost.value;
        const report = costReport({
          estimated: estimate.total,
          actual,
          charged: cost.charged,
          balance: cost.available,
          complexity,
          calls: costLines(ctx)
        });
        if (ctx.state.answerKey !== void 0) {
          keepIfFinal(ctx, args, result, {
            estimated: estimate.total,
            estimatedComplexity,
            actual,
            complexity,
            report,
            creditHeaders: Object.keys(cost.headers)
          });
        }
        if (ctx.state.planning) {
          const figures = { actual, complexity, report, creditHeaders: Object.keys(cost.headers) };
          ctx.state.planCandidate = (ctx.state.pending ? void 0 : planCandidate(ctx, args, result, estimate, figures)) ?? await nodePlanCandidate(ctx, args, result, figures);
        }
        return { ...result, extensions: { ...result.extensions, cost: report } };
      });
    },
    // What a request that never executed was refused with (Yoga's request parsing, parse and
    // validation errors), read from the result once masked, for its audit record.
    onResultProcess({ result, serverContext: ctx }) {
      if (metered.has(ctx.state) || Array.isArray(result) || !isSingleResult(result)) return;
      if (result.errors?.length) refusals.set(ctx.state, firstCode(result));
    },
    async onResponse({ response, serverContext: ctx }) {
      const headers = metered.get(ctx.state);
      if (ctx.state.reserved) return;
      if (headers) {
        for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
        return;
      }
      const type = response.headers.get("content-type") ?? "";
      if (type.startsWith("text/html") || type.startsWith("text/event-stream")) return;
      await auditOnly(ctx, [
        {
          method: METHOD,
          outcome: "rejected",
          ...refusals.get(ctx.state) ?? bareRefusal(response.status),
          httpStatus: response.status
        }
      ]);
    }
  };
}
function bareRefusal(status) {
  if (status === 415) return { errorCode: "UNSUPPORTED_MEDIA_TYPE" };
  return status >= 400 ? { errorCode: "INTERNAL" } : {};
}
function isSingleResult(result) {
  return typeof result === "object" && result !== null && !(Symbol.asyncIterator in result);
}

// src/graphql/answers/serve.ts
var encoder = new TextEncoder();
var decoder2 = new TextDecoder();
function answerKey(app, network, req, body) {
  if (!app.gatewayAnswers.enabled) return null;
  const key = replyKey(network, req);
  return key === null ? null : `${key}\0${body}`;
}
async function serveAnswer(ctx, answer) {
  const cost = await meter(ctx, {
    calls: [
      {
        kind: "priced",
        method: METHOD,
        price: answer.estimated,
        complexity: answer.estimatedComplexity
      }
    ],
    execute: async () => ({
      value: null,
      outcomes: [
        {
          kind: "answered",
          outcome: "ok",
          httpStatus: 200,
          chargedCc: answer.actual,
          complexity: answer.complexity,
          cacheHits: answer.answered
        }
      ]
    })
  });
  const headers = { ...answer.headers, ...cost.headers };
  if (!cost.ok) return refusalReply(cost, headers);
  const report = costReport({
    estimated: answer.estimated,
    actual: answer.actual,
    charged: cost.charged,
    balance: cost.available,
    complexity: answer.complexity,
    calls: answer.lines
  });
  return {
    status: 200,
    body: null,
    raw: encoder.encode(resultText(answer.dataText, report)),
    headers
  };
}
function keepAnswer(app, network, key, pending, reply) {
  if (reply.status !== 200) return;
  const { confirmations } = pending.answer;
  const dataText2 = confirmations ? fillConfirmations(pending.answer.dataText, confirmations) : pending.answer.dataText;
  if (dataText2 === null || decoder2.decode(reply.raw) !== resultText(dataText2, pending.report)) {
    return;
  }
  const headers = Object.fromEntries(
    Object.entries(reply.headers).filter(([name]) => !pending.creditHeaders.includes(name))
  );
  app.gatewayAnswers.remember(network, key, { ...pending.answer, headers }, pending.about).catch((err) => app.log.warn({ err, network }, "could not keep a final answer"));
}

// src/graphql/query-plans/serve.ts
import { GraphQLError as GraphQLError10 } from "graphql";

// src/graphql/loaders.ts
import DataLoader2 from "dataloader";
import { GraphQLError as GraphQLError6 } from "graphql";

// src/graphql/upstream-calls.ts
import DataLoader from "dataloader";
var keyOf = (c) => JSON.stringify([c.method, c.params, c.priceKey ?? c.method]);
function recordCalls(meter2, key, price, count = 1) {
  const used = meter2.calls.get(key) ?? { count: 0, price };
  used.count += count;
  meter2.calls.set(key, used);
}
function charge(ctx, meter2, call) {
  const key = call.priceKey ?? call.method;
  recordCalls(meter2, key, priceOf(ctx.app.config, key, ctx.network) ?? 0);
}
function nodeCallLoader(ctx, meter2) {
  return new DataLoader(
    async (calls) => {
      const pool = ctx.app.nodes.get(ctx.network);
      if (!pool) {
        const err = fromGatewayError(
          gatewayError("UPSTREAM_UNAVAILABLE", "no full node for this network")
        );
        return calls.map(() => err);
      }
      const out = await pool.batch(calls.map((c) => ({ method: c.method, params: c.params })));
      if (!out.ok) return calls.map(() => fromGatewayError(out.error));
      return out.answers.map((answer, i) => {
        charge(ctx, meter2, calls[i]);
        return "error" in answer ? fromNodeError(answer.error) : answer.result;
      });
    },
    { cacheKeyFn: keyOf, maxBatchSize: ctx.app.config.graphql.batchSize }
  );
}
function electrumCallLoader(ctx, meter2) {
  return new DataLoader(
    (calls) => {
      const pool = ctx.app.electrum.get(ctx.network);
      return Promise.all(
        calls.map(async (call) => {
          if (!pool) {
            return fromGatewayError(
              gatewayError("UPSTREAM_UNAVAILABLE", "no Electrum server for this network")
            );
          }
          const out = await pool.request(call.method, call.params);
          if (!out.ok) return fromGatewayError(out.error);
          charge(ctx, meter2, call);
          if ("error" in out.answer) {
            return codedError("UPSTREAM_ERROR", out.answer.error.message, {
              electrumCode: out.answer.error.code
            });
          }
          return out.answer.result;
        })
      );
    },
    { cacheKeyFn: keyOf, maxBatchSize: ctx.app.config.graphql.batchSize }
  );
}
async function ask(loader, call) {
  const out = await loader.load(call);
  if (out instanceof Error) throw out;
  return out;
}

// src/graphql/loaders.ts
var num = (v) => typeof v === "number" ? v : isJsonNumber(v) ? Number(v.value) : void 0;
function modelFromVerbose(result, network, txid, parsed) {
  if (!isJsonObject(result) || typeof result.hex !== "string") {
    throw new GraphQLError6("the full node's answer has no hex", {
      extensions: { code: "UPSTREAM_BAD_RESPONSE" }
    });
  }
  const model = modelFromHex(result.hex, network, txid, parsed);
  let block = null;
  if (typeof result.blockhash === "string") {
    block = {
      hash: result.blockhash,
      confirmations: num(result.confirmations) ?? 0,
      time: num(result.time) ?? 0,
      blocktime: num(result.blocktime) ?? 0
    };
  }
  let prevouts = null;
  if (Array.isArray(result.vin)) {
    prevouts = result.vin.map((vin) => {
      if (!isJsonObject(vin) || !isJsonObject(vin.prevout)) return void 0;
      const p = vin.prevout;
      const spk = isJsonObject(p.scriptPubKey) ? p.scriptPubKey.hex : void 0;
      if (!isJsonNumber(p.value) || typeof spk !== "string") return void 0;
      return {
        valueSats: parseAmount(p.value.value),
        scriptPubKey: fromHex(spk),
        height: num(p.height) ?? 0,
        coinbase: p.generated === true
      };
    });
    if (prevouts.every((p) => p === void 0)) prevouts = null;
  }
  return { ...model, block, prevouts };
}
function nodeTransactionLoader(app, network, meter2, state) {
  const price = priceOf(app.config, "getrawtransaction", network) ?? 0;
  return new DataLoader2(
    async (txids) => {
      const pool = app.nodes.get(network);
      if (!pool) {
        const err = fromGatewayError(
          gatewayError("UPSTREAM_UNAVAILABLE", "no full node for this network")
        );
        return txids.map(() => err);
      }
      const needed = state.wantsPrevouts ? 2 : state.wantsPosition ? 1 : 0;
      const cached = needed < 2 ? await cachedModels(app, network, txids) : null;
      const results = txids.map(() => null);
      const missing = txids.flatMap((_, i) => cached?.[i] ? [] : [i]);
      let answered = txids.length - missing.length;
      meter2.cacheHits += answered;
      for (let i = 0; i < txids.length; i++) if (cached?.[i]) results[i] = cached[i];
      if (missing.length > 0) {
        const keepable = app.txCache.enabled || state.answerKey !== void 0;
        const verbosities = missing.map(
          (i) => needed === 0 && keepable && seenAtHex(app, network, txids[i]) ? 1 : needed
        );
        const out = await pool.batch(
          missing.map((i, k) => ({
            method: "getrawtransaction",
            params: [txids[i], verbosities[k]]
          }))
        );
        if (!out.ok) {
          for (const i of missing) results[i] = fromGatewayError(out.error);
        } else {
          answered += missing.length;
          const verbose = [];
          out.answers.forEach((answer, k) => {
            const i = missing[k];
            if ("error" in answer) {
              results[i] = answer.error.code === -5 ? null : fromNodeError(answer.error);
              return;
            }
            const txid = txids[i].toLowerCase();
            try {
              const verbosity = verbosities[k];
              if (verbosity === 0) {
                results[i] = modelFromHex(answer.result, network, txid, app.parsedTxs);
                return;
              }
              const result = verbosity === 1 ? resultScalars(answer) : answer.result;
              verbose.push({ txid, result });
              results[i] = modelFromVerbose(result, network, txid, app.parsedTxs);
            } catch (err) {
              results[i] = err instanceof GraphQLError6 ? err : badAnswer("full node's");
            }
          });
          await rememberFromCore(app.txCache, pool, network, verbose);
        }
      }
      if (answered > 0) {
        recordCalls(meter2, "getrawtransaction", price, answered);
      }
      return results;
    },
    { maxBatchSize: app.config.graphql.batchSize }
  );
}
function modelFromHex(result, network, txid, parsed) {
  if (typeof result !== "string") {
    throw new GraphQLError6("the full node's answer is not hex", {
      extensions: { code: "UPSTREAM_BAD_RESPONSE" }
    });
  }
  const { tx, scripts } = parsed.fromHex(network, txid, result);
  return { tx, network, origin: "FULL_NODE", block: null, prevouts: null, scripts };
}
var SEEN_AT_HEX_MAX = 16384;
var seenAtHexByApp = /* @__PURE__ */ new WeakMap();
function seenAtHex(app, network, txid) {
  let seen = seenAtHexByApp.get(app);
  if (!seen) {
    seen = new LruMap(SEEN_AT_HEX_MAX);
    seenAtHexByApp.set(app, seen);
  }
  const key = `${network}:${txid.toLowerCase()}`;
  if (seen.get(key)) return true;
  seen.set(key, true);
  return false;
}
async function cachedModels(app, network, txids) {
  const lookup = await app.txCache.lookup(
    network,
    txids.map((t) => t.toLowerCase())
  );
  if (!lookup) return null;
  return lookup.found.map((entry, i) => {
    if (!entry) return null;
    const { tx, scripts } = app.parsedTxs.fromBytes(network, txids[i].toLowerCase(), entry.bytes);
    return {
      tx,
      scripts,
      network,
      origin: "FULL_NODE",
      block: {
        hash: entry.blockhash,
        confirmations: lookup.tip - entry.height + 1,
        time: entry.blocktime,
        blocktime: entry.blocktime
      },
      prevouts: null
    };
  });
}
function electrumTransactionLoader(app, network, meter2) {
  const price = priceOf(app.config, ELECTRUM_METHOD, network) ?? 0;
  const source = electrumTxSource(app, network);
  return new DataLoader2(
    (txids) => Promise.all(
      txids.map(async (txid) => {
        const out = await electrumTransaction(source, txid, true);
        if (out.kind === "failure") return fromGatewayError(out.error);
        if (out.upstream === "cache") meter2.cacheHits += 1;
        recordCalls(meter2, ELECTRUM_METHOD, price);
        if (out.kind === "refused") {
          return /'code': -5\b|"code": ?-5\b/.test(out.error.message) ? null : codedErrorFromElectrum(out.error.message);
        }
        const at = out.position;
        return {
          tx: out.tx(),
          network,
          origin: "FULL_NODE",
          block: at ? {
            hash: at.blockhash,
            confirmations: at.confirmations,
            time: at.blocktime,
            blocktime: at.blocktime
          } : null,
          prevouts: null
        };
      })
    ),
    { maxBatchSize: app.config.graphql.batchSize }
  );
}
var ELECTRUM_METHOD = "blockchain.transaction.get";
function codedErrorFromElectrum(message) {
  return codedError("UPSTREAM_ERROR", message);
}
function badAnswer(source) {
  return codedError("UPSTREAM_BAD_RESPONSE", `the ${source} transaction could not be decoded`);
}
function blockLoader(ctx, info) {
  return new DataLoader2(
    (hashes) => Promise.all(hashes.map((hash) => delegateToIndexer(ctx, info, "block_by_pk", { hash })))
  );
}

// src/graphql/plugins/document-cache.ts
import { parse } from "graphql";
var TOKEN_BYTES = 320;
var ENTRY_SHARE_MAX = 64;
function documentBytes(text, document) {
  let tokens = 0;
  for (let t = document.loc?.startToken ?? null; t; t = t.next) tokens += 1;
  return 2 * text.length + TOKEN_BYTES * tokens;
}
var SHAPES_SHARE = 4;
var DocumentCache = class {
  constructor(bytesMax) {
    this.bytesMax = bytesMax;
    this.lru = new ByteLru(bytesMax, (e) => e.bytes);
    this.shapes = new ByteLru(bytesMax / SHAPES_SHARE, (e) => e.bytes);
    this.entryBytesMax = bytesMax / ENTRY_SHARE_MAX;
  }
  bytesMax;
  lru;
  entryBytesMax;
  /** Rule set (names) → schema → documents that passed it. */
  valid = /* @__PURE__ */ new Map();
  /** Validated shapes, by rule set (names) and shape key. */
  shapes;
  /**
   * Validations skipped because the document had passed, or one of its shape had and its
   * literals fit (`byShape`, counted in `skipped` too), and validations run.
   */
  validations = { skipped: 0, byShape: 0, run: 0 };
  get stats() {
    return this.lru.stats;
  }
  document(text) {
    return this.bytesMax > 0 ? this.lru.get(text)?.document : void 0;
  }
  /**
   * `text`'s document: the one kept, or parsed as Yoga parses it (graphql-armor's token limit is
   * graphql-js's own count: tokens but <EOF>, comments aside) and kept; null when it does not
   * parse or is over the limit, for Yoga to parse and refuse as always.
   */
  parsed(text, tokensMax) {
    const kept = this.document(text);
    if (kept) return kept;
    let document;
    try {
      document = parse(text, { maxTokens: tokensMax });
    } catch {
      return null;
    }
    this.keep(text, document);
    return document;
  }
  keep(text, document) {
    if (this.bytesMax === 0) return;
    const bytes = documentBytes(text, document);
    if (bytes <= this.entryBytesMax) this.lru.set(text, { document, bytes });
  }
  passed(schema2, key, document) {
    let known = this.valid.get(key)?.get(schema2)?.has(document) ?? false;
    if (!known && this.passedByShape(schema2, key, document)) {
      this.markPassed(schema2, key, document);
      this.validations.byShape += 1;
      known = true;
    }
    if (known) this.validations.skipped += 1;
    else this.validations.run += 1;
    return known;
  }
  /** Whether a document of `document`'s shape passed these rules, and its literals fit. */
  passedByShape(schema2, key, document) {
    const found = shapeKeyOf(key, document);
    const entry = found && this.shapes.get(found.at);
    if (!found || !entry || entry.schema !== schema2) return false;
    if (!entry.rule && entry.document) {
      const passed = entry.document;
      this.shapes.grow(found.at, entry, () => {
        entry.rule = literalRule(schema2, passed);
        entry.document = null;
        entry.bytes = 2 * found.at.length + 64 + 8 * (entry.rule?.types.length ?? 0);
      });
    }
    return entry.rule !== null && literalsFit(entry.rule, found.shape);
  }
  markPassed(schema2, key, document) {
    let bySchema = this.valid.get(key);
    if (!bySchema) {
      if (this.valid.size >= 16) this.valid.clear();
      bySchema = /* @__PURE__ */ new WeakMap();
      this.valid.set(key, bySchema);
    }
    let documents = bySchema.get(schema2);
    if (!documents) {
      documents = /* @__PURE__ */ new WeakSet();
      bySchema.set(schema2, documents);
    }
    documents.add(document);
    const found = this.shapes.bytesMax > 0 ? shapeKeyOf(key, document) : null;
    if (found && !this.shapes.has(found.at)) {
      const bytes = 2 * found.at.length + documentBytes("", document);
      this.shapes.set(found.at, { schema: schema2, document, rule: null, bytes });
    }
  }
};
function shapeKeyOf(key, document) {
  const shape = shapeOf(document);
  return shape && { shape, at: `${key}\0${shape.key}` };
}
var rulesKey = (rules) => rules.map((r) => r.name).join(",");
function documentCachePlugin(cache) {
  return {
    onParse({ params, setParsedDocument }) {
      const text = typeof params.source === "string" ? params.source : params.source.body;
      const cached = cache.document(text);
      if (cached) {
        setParsedDocument(cached);
        return;
      }
      return ({ result }) => {
        if (result && !(result instanceof Error)) cache.keep(text, result);
      };
    },
    onValidate({ params: { schema: schema2, documentAST, rules }, setResult }) {
      const key = rulesKey(rules ?? []);
      if (cache.passed(schema2, key, documentAST)) {
        setResult([]);
        return;
      }
      return ({ result }) => {
        if (result.length === 0) cache.markPassed(schema2, key, documentAST);
      };
    }
  };
}

// src/graphql/yoga.ts
import { EnvelopArmorPlugin } from "@escape.tech/graphql-armor";
import { renderGraphiQL } from "@graphql-yoga/render-graphiql";
import { createYoga } from "graphql-yoga";

// src/graphql/plugins/error-codes.ts
import { GraphQLError as GraphQLError7 } from "graphql";
import { maskError as yogaMaskError } from "graphql-yoga";
function coded(error, code, message = error.message) {
  const { originalError: _internal, code: _code, ...extensions } = error.extensions;
  return new GraphQLError7(message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    extensions: { ...extensions, code: graphqlCodeOf(code) }
  });
}
var isLimit = (e) => / limit of \d+ exceeded/i.test(e.message) || /^Maximum introspection depth exceeded/.test(e.message);
var limitMessage = (e) => e.message.replace(/^Syntax Error:\s*/, "");
function codedByKind(error, otherwise) {
  return isLimit(error) ? coded(error, "LIMIT_EXCEEDED", limitMessage(error)) : coded(error, otherwise);
}
function errorCodesPlugin() {
  return {
    onParse() {
      return ({ result, replaceParseResult }) => {
        if (result instanceof GraphQLError7 && typeof result.extensions.code !== "string") {
          replaceParseResult(codedByKind(result, "GRAPHQL_PARSE_FAILED"));
        }
      };
    },
    onValidate() {
      return ({ result, setResult }) => {
        if (result.length > 0) {
          setResult(
            result.map(
              (e) => typeof e.extensions.code === "string" ? e : codedByKind(e, "GRAPHQL_VALIDATION_FAILED")
            )
          );
        }
      };
    }
  };
}
var isInvalidJson = (e) => e.extensions.code === "BAD_REQUEST" && /invalid JSON/i.test(e.message);
function maskError(error, message, isDev, onUnexpected) {
  const masked = yogaMaskError(error, message, isDev);
  if (masked !== error) {
    const path = error instanceof GraphQLError7 ? error.path : void 0;
    onUnexpected?.(error instanceof GraphQLError7 ? error.originalError ?? error : error, path);
  }
  if (!(masked instanceof GraphQLError7)) return masked;
  if (masked !== error) {
    return new GraphQLError7(masked.message, {
      nodes: masked.nodes,
      positions: masked.positions,
      path: masked.path,
      // Yoga's HTTP status for the error (not serialized), without its dev-mode internals.
      extensions: { code: graphqlCodeOf("INTERNAL"), http: masked.extensions.http }
    });
  }
  const code = masked.extensions.code;
  if (isInvalidJson(masked)) {
    return new GraphQLError7("the request body is not valid JSON", {
      extensions: { code: graphqlCodeOf("INVALID_JSON"), http: { status: 400 } }
    });
  }
  if (typeof code === "string") {
    const listed = fromGraphQLCode(code);
    const status = masked.extensions.http?.status;
    const fallback = typeof status === "number" && status >= 400 && status < 500 ? "BAD_REQUEST" : "INTERNAL";
    return coded(masked, graphqlCodeOf(listed) === code ? listed : fallback);
  }
  return codedByKind(masked, "GRAPHQL_VALIDATION_FAILED");
}

// src/graphql/schema.ts
import { lexicographicSortSchema, printSchema } from "graphql";

// src/graphql/scalars.ts
import { GraphQLError as GraphQLError8, Kind as Kind7 } from "graphql";
var HEX64 = /^[0-9a-fA-F]{64}$/;
function hash64(name, what) {
  const parse2 = (value) => {
    if (typeof value !== "string" || !HEX64.test(value)) {
      throw new GraphQLError8(`${name} must be 64 hexadecimal characters (${what.toLowerCase()})`, {
        extensions: { code: "BAD_USER_INPUT" }
      });
    }
    return value.toLowerCase();
  };
  return builder.scalarType(name, {
    description: `${what}: 64 hexadecimal characters, in the display (RPC) byte order.`,
    serialize: (v) => v,
    parseValue: parse2,
    parseLiteral: (ast) => parse2(ast.kind === Kind7.STRING ? ast.value : void 0)
  });
}
hash64("TxId", "A transaction id");
hash64("BlockHash", "A block hash");
builder.scalarType("Hex", {
  description: "Bytes as lowercase hexadecimal, two characters a byte.",
  serialize: (v) => v,
  parseValue: (v) => {
    if (typeof v !== "string" || !/^([0-9a-fA-F]{2})*$/.test(v)) {
      throw new GraphQLError8("Hex must be an even number of hexadecimal characters", {
        extensions: { code: "BAD_USER_INPUT" }
      });
    }
    return v.toLowerCase();
  }
});
builder.scalarType("Satoshis", {
  description: "An amount in satoshis, as a JSON integer. Every amount Bitcoin can hold (\u2264 2.1 \xD7 10^15) is exact in IEEE doubles, so this is never a rounded float.",
  serialize: (v) => {
    const n = Number(v);
    if (!Number.isSafeInteger(n)) throw new GraphQLError8("amount out of range");
    return n;
  },
  parseValue: (v) => {
    if (typeof v !== "number" || !Number.isSafeInteger(v)) {
      throw new GraphQLError8("Satoshis must be an integer", {
        extensions: { code: "BAD_USER_INPUT" }
      });
    }
    return BigInt(v);
  }
});
builder.scalarType("BtcAmount", {
  description: 'An amount in BTC as Bitcoin Core prints it: always 8 decimals, as a string ("0.00100000").',
  serialize: (v) => v,
  parseValue: (v) => String(v)
});
builder.scalarType("DateTime", {
  description: "An instant, as an ISO 8601 string in UTC.",
  serialize: (v) => v.toISOString(),
  parseValue: (v) => new Date(String(v))
});
function integerScalar(name, description, max) {
  const parse2 = (v) => {
    if (typeof v !== "number" || !Number.isInteger(v) || v < 0 || v > max) {
      throw new GraphQLError8(`${name} must be an integer from 0 to ${max}`, {
        extensions: { code: "BAD_USER_INPUT" }
      });
    }
    return v;
  };
  builder.scalarType(name, {
    description,
    serialize: (v) => v,
    parseValue: parse2,
    parseLiteral: (ast) => parse2(ast.kind === Kind7.INT ? Number(ast.value) : void 0)
  });
}
integerScalar(
  "UInt32",
  "An unsigned 32-bit integer (nSequence, nLockTime, nVersion): beyond GraphQL's signed Int, exact as a JSON number.",
  4294967295
);
integerScalar("Credits", "A number of credits (CC), as a JSON integer.", Number.MAX_SAFE_INTEGER);

// src/graphql/types/account.ts
var AuditRecordRef = builder.objectRef("AuditRecord").implement({
  description: "One call as the audit log keeps it.",
  fields: (t) => ({
    id: t.id({ resolve: (r) => String(r.id) }),
    at: t.field({ type: "DateTime", resolve: (r) => r.at }),
    backend: t.string({ resolve: (r) => r.backend }),
    network: t.string({ resolve: (r) => r.network }),
    method: t.string({ resolve: (r) => r.method }),
    outcome: t.string({ resolve: (r) => r.outcome }),
    errorCode: t.string({ nullable: true, resolve: (r) => r.error_code }),
    httpStatus: t.int({ resolve: (r) => r.http_status }),
    estimatedCc: t.field({ type: "Credits", resolve: (r) => r.estimated_cc }),
    chargedCc: t.field({ type: "Credits", resolve: (r) => r.charged_cc }),
    complexity: t.int({
      nullable: true,
      description: "Graph queries' complexity score.",
      resolve: (r) => r.complexity
    }),
    durationMs: t.int({ nullable: true, resolve: (r) => r.duration_ms })
  })
});
var UsageRow = builder.objectRef("UsageRow").implement({
  fields: (t) => ({
    backend: t.string({ resolve: (r) => r.backend }),
    network: t.string({ resolve: (r) => r.network }),
    method: t.string({ resolve: (r) => r.method }),
    calls: t.int({ description: "Every call, refused ones included.", resolve: (r) => r.calls }),
    refusedCalls: t.int({
      description: "Of the calls, those refused before anything ran (bad input, unknown method, scope, limits, credits): never charged.",
      resolve: (r) => r.refused
    }),
    chargedCc: t.field({ type: "Credits", resolve: (r) => r.charged })
  })
});
var DayUsageRef = builder.objectRef("DayUsage").implement({
  fields: (t) => ({
    day: t.string({ description: "YYYY-MM-DD, UTC.", resolve: (d) => d.day }),
    calls: t.int({ resolve: (d) => d.calls }),
    chargedCc: t.field({ type: "Credits", resolve: (d) => d.charged })
  })
});
var OutcomeUsageRef = builder.objectRef("OutcomeUsage").implement({
  fields: (t) => ({
    outcome: t.string({ resolve: (o) => o.outcome }),
    httpStatus: t.int({ resolve: (o) => o.httpStatus }),
    calls: t.int({ resolve: (o) => o.calls }),
    chargedCc: t.field({ type: "Credits", resolve: (o) => o.charged })
  })
});
var CycleRef = builder.objectRef("BillingCycle").implement({
  description: "A billing cycle (monthly from the account's creation by default; config billing.cycle).",
  fields: (t) => ({
    index: t.int({ description: "0 for the account's first cycle.", resolve: (c) => c.index }),
    start: t.field({ type: "DateTime", resolve: (c) => c.start }),
    end: t.field({ type: "DateTime", description: "Exclusive.", resolve: (c) => c.end }),
    calls: t.int({
      resolve: async (c, _a, ctx) => (await usageByDay(ctx.app.db, c.accountId, c)).reduce((n, d) => n + d.calls, 0)
    }),
    refusedCalls: t.int({
      description: "Of the calls, those refused before anything ran: shown apart from billed ones.",
      resolve: async (c, _a, ctx) => (await usageByOutcome(ctx.app.db, c.accountId, c)).filter((o) => REFUSED_OUTCOMES.includes(o.outcome)).reduce((n, o) => n + o.calls, 0)
    }),
    chargedCc: t.field({
      type: "Credits",
      resolve: async (c, _a, ctx) => (await usageByDay(ctx.app.db, c.accountId, c)).reduce((n, d) => n + d.charged, 0)
    }),
    usage: t.field({
      type: [UsageRow],
      description: "Calls and credits by backend, network and method, from the audit log.",
      resolve: (c, _args, ctx) => usageByMethod(ctx.app.db, c.accountId, c)
    }),
    byDay: t.field({
      type: [DayUsageRef],
      description: "Calls and credits per UTC day (days without calls are absent).",
      resolve: (c, _args, ctx) => usageByDay(ctx.app.db, c.accountId, c)
    }),
    byOutcome: t.field({
      type: [OutcomeUsageRef],
      description: "Calls and credits by outcome and HTTP status.",
      resolve: (c, _args, ctx) => usageByOutcome(ctx.app.db, c.accountId, c)
    }),
    auditRecords: t.field({
      type: [AuditRecordRef],
      description: "The cycle's audit records, newest first.",
      args: { limit: t.arg.int({ defaultValue: 50 }) },
      resolve: (c, { limit }, ctx) => auditInRange(ctx.app.db, c.accountId, c, Math.max(1, Math.min(limit ?? 50, 1e3)))
    })
  })
});
var AccountRef = builder.objectRef("Account").implement({
  description: "The account that owns the token in the route.",
  fields: (t) => ({
    name: t.string({ resolve: (a) => a.name }),
    createdAt: t.field({ type: "DateTime", resolve: (a) => a.createdAt }),
    balance: t.field({
      type: "Credits",
      description: "Granted \u2212 charged.",
      resolve: (a) => a.balance
    }),
    held: t.field({
      type: "Credits",
      description: "Reserved by calls in flight.",
      resolve: (a) => a.held
    }),
    available: t.field({
      type: "Credits",
      description: "What the next call can spend.",
      resolve: (a) => a.balance - a.held
    }),
    cycle: t.field({
      type: CycleRef,
      nullable: true,
      description: "A billing cycle by index; the current one by default. Null for one not begun.",
      args: { index: t.arg.int() },
      resolve: (a, { index }, ctx) => {
        const rule = ctx.app.config.billing.cycle;
        const current = cycleContaining(a.createdAt, /* @__PURE__ */ new Date(), rule);
        if (index === null || index === void 0) return { ...current, accountId: a.id };
        if (index < 0 || index > current.index) return null;
        return { ...cycleAt(a.createdAt, index, rule), accountId: a.id };
      }
    }),
    cycles: t.field({
      type: [CycleRef],
      description: "Cycles so far, newest first.",
      args: { last: t.arg.int({ defaultValue: 12 }) },
      resolve: (a, { last }, ctx) => {
        const rule = ctx.app.config.billing.cycle;
        const current = cycleContaining(a.createdAt, /* @__PURE__ */ new Date(), rule).index;
        const count = Math.max(0, Math.min(last ?? 12, 120, current + 1));
        return Array.from({ length: count }, (_, i) => ({
          ...cycleAt(a.createdAt, current - i, rule),
          accountId: a.id
        }));
      }
    }),
    auditRecords: t.field({
      type: [AuditRecordRef],
      description: "The latest audit records, newest first.",
      args: { limit: t.arg.int({ defaultValue: 20 }) },
      resolve: (a, { limit }, ctx) => latestAudit(ctx.app.db, a.id, Math.max(1, Math.min(limit ?? 20, 500)))
    })
  })
});
builder.queryFields((t) => ({
  account: t.field({
    type: AccountRef,
    description: "Your account: balance, billing cycles and usage, latest calls. Free.",
    resolve: async (_root, _args, ctx) => {
      const account = await findAccount(ctx.app.db, ctx.owner.accountId);
      if (!account) throw new Error("token owner vanished");
      return account;
    }
  })
}));

// src/graphql/types/tokens.ts
var TokenStateEnum = builder.enumType("TokenState", {
  values: { LIVE: { value: "live" }, EXPIRED: { value: "expired" }, REVOKED: { value: "revoked" } }
});
var TokenScopeRef = builder.objectRef("TokenScope").implement({
  description: "What a token may do; a null list is no restriction on that dimension.",
  fields: (t) => ({
    backends: t.stringList({ nullable: true, resolve: (s) => s.backends ?? null }),
    networks: t.stringList({ nullable: true, resolve: (s) => s.networks ?? null }),
    methods: t.stringList({ nullable: true, resolve: (s) => s.methods ?? null }),
    origins: t.stringList({ nullable: true, resolve: (s) => s.origins ?? null }),
    ips: t.stringList({ nullable: true, resolve: (s) => s.ips ?? null })
  })
});
var TokenScopeInput = builder.inputType("TokenScopeInput", {
  description: "A scope: backends (node, electrum, graph, gateway), networks, methods, browser origins (CORS), client address ranges (CIDR). Omitted lists restrict nothing.",
  fields: (t) => ({
    backends: t.stringList({ required: false }),
    networks: t.stringList({ required: false }),
    methods: t.stringList({ required: false }),
    origins: t.stringList({ required: false }),
    ips: t.stringList({ required: false })
  })
});
var TokenRef = builder.objectRef("Token").implement({
  description: "An access token of the account, as its hint: the token itself is never stored.",
  fields: (t) => ({
    id: t.id({ resolve: (r) => String(r.id) }),
    hint: t.string({ resolve: (r) => r.hint }),
    label: t.string({ nullable: true, resolve: (r) => r.label }),
    createdAt: t.field({ type: "DateTime", resolve: (r) => r.createdAt }),
    expiresAt: t.field({ type: "DateTime", nullable: true, resolve: (r) => r.expiresAt }),
    revokedAt: t.field({ type: "DateTime", nullable: true, resolve: (r) => r.revokedAt }),
    state: t.field({
      type: TokenStateEnum,
      resolve: (r) => r.revokedAt ? "revoked" : r.expiresAt && r.expiresAt <= /* @__PURE__ */ new Date() ? "expired" : "live"
    }),
    scope: t.field({ type: TokenScopeRef, nullable: true, resolve: (r) => r.scope }),
    current: t.boolean({
      description: "The token this request was made with (or the dashboard signed in with).",
      resolve: (r, _a, ctx) => r.id === ctx.owner.tokenId
    })
  })
});
var IssuedTokenRef = builder.objectRef("IssuedToken").implement({
  fields: (t) => ({
    token: t.string({
      description: "The new token, in clear: shown this once, stored only as its hash.",
      resolve: (i) => i.token
    }),
    info: t.field({ type: TokenRef, resolve: (i) => i.info }),
    previous: t.field({
      type: TokenRef,
      nullable: true,
      description: "rotateToken: the replaced token, with the end of its grace period.",
      resolve: (i) => i.previous ?? null
    })
  })
});
builder.objectField(
  AccountRef,
  "tokens",
  (t) => t.field({
    type: [TokenRef],
    description: "The account's tokens (hints only), revoked and expired ones included. Free.",
    resolve: (a, _args, ctx) => listTokens(ctx.app.db, a.id)
  })
);
function manager(ctx, what = "tokens") {
  if (ctx.owner.scope) {
    throw codedError(
      "SCOPE_METHOD",
      `managing ${what} needs an unrestricted token; this one has a scope`,
      { scope: "method" }
    );
  }
  return ctx.owner.accountId;
}
function scopeOf(input) {
  if (!input) return null;
  const given = Object.fromEntries(Object.entries(input).filter(([, v]) => v != null));
  if (Object.keys(given).length === 0) return null;
  const parsed = tokenScopeSchema.safeParse(given);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw codedError("INVALID_PARAMS", `scope.${issue.path.join(".")}: ${issue.message}`);
  }
  return parsed.data;
}
function tokenIdOf(id) {
  const n = Number(id);
  if (!Number.isSafeInteger(n) || n <= 0) throw notFound2(id);
  return n;
}
var notFound2 = (id) => codedError("NOT_FOUND", `no live token ${id} on this account`);
async function rowOf(ctx, accountId, id) {
  const row = await findToken(ctx.app.db, accountId, id);
  if (!row) throw notFound2(id);
  return row;
}
builder.mutationType({});
builder.mutationFields((t) => ({
  createToken: t.field({
    type: IssuedTokenRef,
    description: "Issues a token for your account, shown once. Needs an unrestricted token. Free.",
    args: {
      label: t.arg.string({ required: false }),
      scope: t.arg({ type: TokenScopeInput, required: false }),
      expiresAt: t.arg({ type: "DateTime", required: false })
    },
    resolve: async (_root, args, ctx) => {
      const accountId = manager(ctx);
      if (args.label && args.label.length > 100) {
        throw codedError("INVALID_PARAMS", "label: at most 100 characters");
      }
      if (args.expiresAt && args.expiresAt.getTime() <= Date.now()) {
        throw codedError("INVALID_PARAMS", "expiresAt: must be in the future");
      }
      const issued = await issueToken(ctx.app.db, accountId, {
        label: args.label ?? null,
        scope: scopeOf(args.scope),
        expiresAt: args.expiresAt ?? null
      });
      return { token: issued.token, info: await rowOf(ctx, accountId, issued.id) };
    }
  }),
  restrictToken: t.field({
    type: TokenRef,
    description: "Replaces a live token's scope (null: unrestricted); applies at once. Free.",
    args: {
      id: t.arg.id({ required: true }),
      scope: t.arg({ type: TokenScopeInput, required: false })
    },
    resolve: async (_root, args, ctx) => {
      const accountId = manager(ctx);
      const row = await restrictToken(
        ctx.app.db,
        tokenIdOf(args.id),
        scopeOf(args.scope),
        accountId
      );
      if (!row) throw notFound2(args.id);
      return row;
    }
  }),
  rotateToken: t.field({
    type: IssuedTokenRef,
    description: "A new token with the same label and scope; the old one keeps working for graceSeconds (default a day). Free.",
    args: {
      id: t.arg.id({ required: true }),
      graceSeconds: t.arg.int({ required: false, defaultValue: 86400 })
    },
    resolve: async (_root, args, ctx) => {
      const accountId = manager(ctx);
      const grace = args.graceSeconds ?? 86400;
      if (grace < 0 || grace > 30 * 86400) {
        throw codedError("INVALID_PARAMS", "graceSeconds: 0 to 2592000 (30 days)");
      }
      const id = tokenIdOf(args.id);
      const rotated = await rotateToken(ctx.app.db, id, grace * 1e3, accountId);
      if (!rotated) throw notFound2(args.id);
      return {
        token: rotated.issued.token,
        info: await rowOf(ctx, accountId, rotated.issued.id),
        previous: await rowOf(ctx, accountId, id)
      };
    }
  }),
  revokeToken: t.field({
    type: TokenRef,
    description: "Revokes a token of your account: its next request gets 401. Free.",
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const accountId = manager(ctx);
      const id = tokenIdOf(args.id);
      if (!await revokeToken(ctx.app.db, { id }, accountId)) throw notFound2(args.id);
      return rowOf(ctx, accountId, id);
    }
  })
}));

// src/graphql/types/block.ts
import { defaultMergedResolver } from "@graphql-tools/delegate";

// src/graphql/types/indexer-inputs.ts
import {
  getNullableType as getNullableType3,
  isEnumType as isEnumType2,
  isInputObjectType,
  isListType as isListType4,
  isNonNullType as isNonNullType3,
  isScalarType as isScalarType2
} from "graphql";
var schema = indexerSchema();
var refs = /* @__PURE__ */ new Map();
for (const type of Object.values(schema.getTypeMap())) {
  if (type.name.startsWith("__")) continue;
  if (isEnumType2(type)) {
    refs.set(
      type.name,
      builder.enumType(type.name, {
        ...type.description ? { description: type.description } : {},
        values: Object.fromEntries(
          type.getValues().map((v) => [
            v.name,
            { value: v.name, ...v.description ? { description: v.description } : {} }
          ])
        )
      })
    );
  } else if (isInputObjectType(type)) {
    refs.set(type.name, builder.inputRef(type.name));
  }
}
function pothosInput(type) {
  const named = (t) => {
    if (isScalarType2(t)) return t.name;
    const ref = refs.get(t.name);
    if (!ref) throw new Error(`indexer input type ${String(t)} has no counterpart`);
    return ref;
  };
  const nullable = getNullableType3(type);
  if (isListType4(nullable)) {
    const item = nullable.ofType;
    if (isListType4(getNullableType3(item))) throw new Error("nested lists are not mirrored");
    return {
      type: [named(getNullableType3(item))],
      required: { list: isNonNullType3(type), items: isNonNullType3(item) }
    };
  }
  return { type: named(nullable), required: isNonNullType3(type) };
}
var describe = (d) => d ? { description: d } : {};
for (const type of Object.values(schema.getTypeMap())) {
  if (!isInputObjectType(type) || type.name.startsWith("__")) continue;
  const ref = refs.get(type.name);
  ref.implement({
    ...describe(type.description),
    fields: (t) => Object.fromEntries(
      Object.values(type.getFields()).map((f) => [
        f.name,
        t.field({ ...pothosInput(f.type), ...describe(f.description) })
      ])
    )
  });
}
function indexerArgs(arg, of) {
  const [typeName, fieldName] = of.split(".");
  const owner = schema.getType(typeName);
  const field = owner && "getFields" in owner && !isInputObjectType(owner) ? owner.getFields()[fieldName] : void 0;
  if (!field) throw new Error(`the indexer schema has no field ${of}`);
  return Object.fromEntries(
    field.args.map((a) => [
      a.name,
      arg({ ...pothosInput(a.type), ...describe(a.description) })
    ])
  );
}

// src/graphql/types/block.ts
function column() {
  return (row, args, ctx, info) => defaultMergedResolver(row, args, ctx, info);
}
var BlockRef = builder.objectRef("Block");
var BlockTransactionRef = builder.objectRef("BlockTransaction");
BlockRef.implement({
  description: "A block as the indexer keeps it (the graph backend's `block` table; columns under its names).",
  fields: (t) => ({
    hash: t.field({ type: "BlockHash", resolve: column() }),
    height: t.int({ resolve: column() }),
    timestamp: t.int({
      description: "Unix seconds (the header's time).",
      resolve: column()
    }),
    transaction_count: t.int({ resolve: column() }),
    size_bytes: t.int({ resolve: column() }),
    transactions: t.field({
      type: [BlockTransactionRef],
      description: "The block's transactions, in block order unless ordered. Arguments as the indexer takes them.",
      args: indexerArgs(t.arg, "block.transactions"),
      resolve: column()
    })
  })
});
BlockTransactionRef.implement({
  description: "A transaction as the indexer lists it in its block (`block_transaction`).",
  fields: (t) => ({
    hash: t.field({ type: "TxId", description: "The txid.", resolve: column() }),
    size_bytes: t.int({ resolve: column() }),
    input_count: t.int({ resolve: column() }),
    output_count: t.int({ resolve: column() }),
    transaction: t.field({
      type: TransactionRef,
      nullable: true,
      description: "The full transaction, from the full node: looked up in JSON-RPC batches with every other transaction of the request, each priced as getrawtransaction (times the sizes of the lists around it).",
      extensions: { cost: { method: "getrawtransaction" } },
      resolve: (row, _args, ctx, info) => {
        const site = sitePath(info.path);
        const left = ctx.state.joinBudget.get(site) ?? 0;
        if (left <= 0) {
          throw codedError(
            "LIMIT_EXCEEDED",
            `${site}: more rows than this join was priced for; give the lists around it a limit`
          );
        }
        ctx.state.joinBudget.set(site, left - 1);
        return transactionByTxid(ctx, row[joinKey("hash")]);
      }
    })
  })
});
builder.objectField(
  TransactionRef,
  "block",
  (t) => t.field({
    type: BlockRef,
    nullable: true,
    description: "The block that mined it, from the indexer (block_by_pk): deduplicated and batched per request, priced as an indexer query for each distinct block. Null in the mempool and for decoded transactions.",
    extensions: { indexer: { rootField: "block_by_pk" } },
    resolve: async (tx, _args, ctx, info) => {
      if (!tx.block) return null;
      const site = sitePath(info.path);
      let loader = ctx.blocksBySite.get(site);
      if (!loader) {
        loader = blockLoader(ctx, info);
        ctx.blocksBySite.set(site, loader);
      }
      try {
        return await loader.load(tx.block.hash);
      } catch (err) {
        throw atThisField(err);
      }
    }
  })
);
builder.queryFields((t) => ({
  block: t.field({
    type: [BlockRef],
    nullable: true,
    description: "Blocks from the indexer, delegated to its `block` field with `where`, `limit`, `offset` and `order_by` as given (Hasura's semantics). Priced as a graph query: base + complexity. Null, with an error, when the indexer fails.",
    args: indexerArgs(t.arg, "query_root.block"),
    extensions: { indexer: { rootField: "block" } },
    resolve: async (_root, args, ctx, info) => await delegateToIndexer(ctx, info, "block", args)
  }),
  block_by_pk: t.field({
    type: BlockRef,
    nullable: true,
    description: "A block by hash from the indexer (its `block_by_pk`); null when there is none. Priced as a graph query.",
    args: indexerArgs(t.arg, "query_root.block_by_pk"),
    extensions: { indexer: { rootField: "block_by_pk" } },
    resolve: async (_root, args, ctx, info) => await delegateToIndexer(ctx, info, "block_by_pk", args)
  })
}));

// src/graphql/types/chain.ts
var num2 = (v) => isJsonNumber(v) ? Number(v.value) : null;
var str = (v) => typeof v === "string" ? v : null;
var btc = (v) => isJsonNumber(v) ? parseAmount(v.value) : null;
function objectOf(answer, what) {
  if (!isJsonObject(answer))
    throw codedError("UPSTREAM_BAD_RESPONSE", `the node's ${what} is not an object`);
  return answer;
}
var ChainBlockFields = builder.interfaceRef("ChainBlockFields").implement({
  description: "A block header's fields, as Bitcoin Core reports them for the best chain.",
  fields: (t) => ({
    hash: t.field({ type: "BlockHash", resolve: (o) => str(o.hash) ?? "" }),
    height: t.int({ resolve: (o) => num2(o.height) ?? 0 }),
    confirmations: t.int({
      description: "1 for the tip; -1 for a block off the best chain.",
      resolve: (o) => num2(o.confirmations) ?? 0
    }),
    version: t.int({ resolve: (o) => num2(o.version) ?? 0 }),
    merkleRoot: t.field({ type: "TxId", resolve: (o) => str(o.merkleroot) ?? "" }),
    time: t.int({
      description: "Unix seconds (the header's time).",
      resolve: (o) => num2(o.time) ?? 0
    }),
    medianTime: t.int({
      nullable: true,
      description: "Median time past: the median of the 11 blocks' times up to this one.",
      resolve: (o) => num2(o.mediantime)
    }),
    nonce: t.field({ type: "UInt32", resolve: (o) => num2(o.nonce) ?? 0 }),
    bits: t.string({
      description: "The compact target, as hex.",
      resolve: (o) => str(o.bits) ?? ""
    }),
    difficulty: t.float({ resolve: (o) => num2(o.difficulty) ?? 0 }),
    chainwork: t.string({
      nullable: true,
      description: "Expected hashes to produce the chain up to here, as hex.",
      resolve: (o) => str(o.chainwork)
    }),
    transactionCount: t.int({ resolve: (o) => num2(o.nTx) ?? 0 }),
    previousBlockHash: t.field({
      type: "BlockHash",
      nullable: true,
      resolve: (o) => str(o.previousblockhash)
    }),
    nextBlockHash: t.field({
      type: "BlockHash",
      nullable: true,
      resolve: (o) => str(o.nextblockhash)
    })
  })
});
var BlockHeaderRef = builder.objectRef("BlockHeader").implement({
  description: "A block header from the full node (getblockheader).",
  interfaces: [ChainBlockFields],
  isTypeOf: (o) => isJsonObject(o) && !Array.isArray(o.tx),
  fields: () => ({})
});
var TX_PAGE = 25;
var NodeBlockRef = builder.objectRef("NodeBlock").implement({
  description: "A block from the full node (getblock, verbosity 1): its header fields, sizes and txids; its transactions decoded on request.",
  interfaces: [ChainBlockFields],
  isTypeOf: (o) => isJsonObject(o) && Array.isArray(o.tx),
  fields: (t) => ({
    size: t.int({ resolve: (o) => num2(o.size) ?? 0 }),
    strippedSize: t.int({ resolve: (o) => num2(o.strippedsize) ?? 0 }),
    weight: t.int({ resolve: (o) => num2(o.weight) ?? 0 }),
    txids: t.field({
      type: ["TxId"],
      resolve: (o) => Array.isArray(o.tx) ? o.tx.filter((x) => typeof x === "string") : []
    }),
    transactions: t.field({
      type: [TransactionRef],
      description: `A page of the block's transactions in block order (${TX_PAGE} by default), each priced as a getrawtransaction.`,
      args: {
        limit: t.arg.int({ defaultValue: TX_PAGE }),
        offset: t.arg.int({ defaultValue: 0 })
      },
      extensions: {
        cost: {
          method: "getrawtransaction",
          countArg: { arg: "limit", default: TX_PAGE }
        }
      },
      resolve: (o, { limit, offset }, ctx) => {
        const txids = Array.isArray(o.tx) ? o.tx.filter((x) => typeof x === "string") : [];
        const from = Math.max(0, offset ?? 0);
        const page = txids.slice(from, from + Math.max(0, limit ?? TX_PAGE));
        return Promise.all(page.map((txid) => transactionByTxid(ctx, txid)));
      }
    })
  })
});
async function blockHashOf(ctx, hash, height) {
  if (hash == null === (height == null)) {
    throw codedError("INVALID_PARAMS", "give exactly one of hash and height");
  }
  if (hash != null) return hash;
  const answer = await ask(ctx.nodeCalls, {
    method: "getblockhash",
    params: [jsonNumber(height)]
  });
  if (typeof answer !== "string")
    throw codedError("UPSTREAM_BAD_RESPONSE", "the node's block hash is not a string");
  return answer;
}
var BY_HEIGHT = { arg: "height", method: "getblockhash" };
var FeeEstimateRef = builder.objectRef("FeeEstimate").implement({
  description: "Core's estimatesmartfee for one confirmation target.",
  fields: (t) => ({
    target: t.int({
      description: "The confirmation target asked for, in blocks.",
      resolve: (e) => e.target
    }),
    blocks: t.int({
      description: "The target the estimate is actually for (Core may widen it).",
      resolve: (e) => num2(e.answer.blocks) ?? e.target
    }),
    feeratePerKvB: t.field({
      type: Amount,
      nullable: true,
      description: "Per 1,000 virtual bytes; null when the node has too little data.",
      resolve: (e) => btc(e.answer.feerate)
    }),
    satPerVbyte: t.float({
      nullable: true,
      resolve: (e) => {
        const rate = btc(e.answer.feerate);
        return rate === null ? null : Number(rate) / 1e3;
      }
    }),
    errors: t.stringList({
      resolve: (e) => Array.isArray(e.answer.errors) ? e.answer.errors.map(String) : []
    })
  })
});
var MempoolSummaryRef = builder.objectRef("MempoolSummary").implement({
  description: "The node's mempool (getmempoolinfo).",
  fields: (t) => ({
    transactionCount: t.int({ resolve: (o) => num2(o.size) ?? 0 }),
    bytes: t.int({
      description: "Sum of the transactions' virtual sizes.",
      resolve: (o) => num2(o.bytes) ?? 0
    }),
    usage: t.int({
      description: "Memory the node uses for it.",
      resolve: (o) => num2(o.usage) ?? 0
    }),
    totalFee: t.field({ type: Amount, nullable: true, resolve: (o) => btc(o.total_fee) }),
    minFeePerKvB: t.field({
      type: Amount,
      nullable: true,
      description: "The lowest feerate the mempool admits now.",
      resolve: (o) => btc(o.mempoolminfee)
    })
  })
});
var ChainRef = builder.objectRef("Chain").implement({
  description: "The network's chain as the full node sees it (getblockchaininfo).",
  fields: (t) => ({
    name: t.string({
      description: "Core's chain name: main, test, testnet4, signet, regtest.",
      resolve: (o) => str(o.chain) ?? ""
    }),
    height: t.int({ resolve: (o) => num2(o.blocks) ?? 0 }),
    bestBlockHash: t.field({ type: "BlockHash", resolve: (o) => str(o.bestblockhash) ?? "" }),
    difficulty: t.float({ resolve: (o) => num2(o.difficulty) ?? 0 }),
    medianTime: t.int({ resolve: (o) => num2(o.mediantime) ?? 0 }),
    chainwork: t.string({ resolve: (o) => str(o.chainwork) ?? "" }),
    tip: t.field({
      type: BlockHeaderRef,
      description: "The tip's header.",
      extensions: { cost: { method: "getblockheader" } },
      resolve: async (o, _args, ctx) => objectOf(
        await ask(ctx.nodeCalls, {
          method: "getblockheader",
          params: [str(o.bestblockhash) ?? "", true]
        }),
        "header"
      )
    }),
    mempool: t.field({
      type: MempoolSummaryRef,
      extensions: { cost: { method: "getmempoolinfo" } },
      resolve: async (_o, _args, ctx) => objectOf(
        await ask(ctx.nodeCalls, { method: "getmempoolinfo", params: [] }),
        "mempool summary"
      )
    })
  })
});
builder.queryFields((t) => ({
  nodeBlock: t.field({
    type: NodeBlockRef,
    description: "A block of the best chain from the full node, by hash or height (getblock verbosity 1; a height costs a getblockhash too). The indexer's blocks are `block` and `block_by_pk`.",
    args: { hash: t.arg({ type: "BlockHash" }), height: t.arg.int() },
    extensions: { cost: { method: "getblock", alsoWhenArg: BY_HEIGHT } },
    resolve: async (_root, { hash, height }, ctx) => {
      const blockhash = await blockHashOf(ctx, hash, height);
      return objectOf(
        await ask(ctx.nodeCalls, { method: "getblock", params: [blockhash, jsonNumber(1)] }),
        "block"
      );
    }
  }),
  blockHeader: t.field({
    type: BlockHeaderRef,
    description: "A block header of the best chain from the full node, by hash or height (getblockheader).",
    args: { hash: t.arg({ type: "BlockHash" }), height: t.arg.int() },
    extensions: { cost: { method: "getblockheader", alsoWhenArg: BY_HEIGHT } },
    resolve: async (_root, { hash, height }, ctx) => {
      const blockhash = await blockHashOf(ctx, hash, height);
      return objectOf(
        await ask(ctx.nodeCalls, { method: "getblockheader", params: [blockhash, true] }),
        "header"
      );
    }
  }),
  chain: t.field({
    type: ChainRef,
    description: "The chain's tip, difficulty and (priced apart) mempool summary, from the full node.",
    extensions: { cost: { method: "getblockchaininfo" } },
    resolve: async (_root, _args, ctx) => objectOf(
      await ask(ctx.nodeCalls, { method: "getblockchaininfo", params: [] }),
      "chain state"
    )
  }),
  feeEstimates: t.field({
    type: [FeeEstimateRef],
    description: "Core's estimatesmartfee for each confirmation target (one batch), each priced as one call.",
    args: { targets: t.arg.intList({ required: true }) },
    extensions: { cost: { method: "estimatesmartfee", listArg: "targets" } },
    resolve: (_root, { targets }, ctx) => Promise.all(
      targets.map(async (target) => ({
        target,
        answer: objectOf(
          await ask(ctx.nodeCalls, { method: "estimatesmartfee", params: [jsonNumber(target)] }),
          "fee estimate"
        )
      }))
    )
  })
}));
builder.mutationFields((t) => ({
  broadcastTransaction: t.field({
    type: "TxId",
    description: "Broadcasts a signed transaction through the full node (sendrawtransaction, its default fee ceiling); its txid. The node's refusal is an error carrying Core's code (`rpcCode`: -25 missing inputs, -26 policy, -27 already in the chain) and is charged, as on the node route.",
    args: { hex: t.arg({ type: "Hex", required: true }) },
    extensions: { cost: { method: "sendrawtransaction" } },
    resolve: async (_root, { hex }, ctx) => {
      const txid = await ask(ctx.nodeCalls, { method: "sendrawtransaction", params: [hex] });
      if (typeof txid !== "string")
        throw codedError("UPSTREAM_BAD_RESPONSE", "the node's txid is not a string");
      return txid;
    }
  })
}));
var MerkleProofRef = builder.objectRef("MerkleProof").implement({
  description: "Proof that a transaction is in its block: Core's gettxoutproof (a serialized CMerkleBlock: the header, the transaction count, the branch hashes and flag bits), which Core's verifytxoutproof and SPV libraries read.",
  fields: (t) => ({
    blockHash: t.field({ type: "BlockHash", resolve: (p) => p.blockHash }),
    hex: t.field({ type: "Hex", resolve: (p) => p.hex })
  })
});
builder.objectField(
  TransactionRef,
  "merkleProof",
  (t) => t.field({
    type: MerkleProofRef,
    nullable: true,
    description: "The proof of inclusion in its block (gettxoutproof, priced as such); null for a mempool or decoded transaction.",
    extensions: { cost: { method: "gettxoutproof" } },
    resolve: async (m, _args, ctx) => {
      if (!m.block) return null;
      const hex = await ask(ctx.nodeCalls, {
        method: "gettxoutproof",
        params: [[m.tx.txid], m.block.hash]
      });
      if (typeof hex !== "string")
        throw codedError("UPSTREAM_BAD_RESPONSE", "the node's proof is not hex");
      return { blockHash: m.block.hash, hex };
    }
  })
);

// src/graphql/types/address.ts
var sats = (v) => isJsonNumber(v) ? BigInt(v.value) : 0n;
var int = (v) => isJsonNumber(v) ? Number(v.value) : 0;
function listOf(answer, what) {
  if (!Array.isArray(answer) || !answer.every((e) => isJsonObject(e))) {
    throw codedError("UPSTREAM_BAD_RESPONSE", `the Electrum server's ${what} is not a list`);
  }
  return answer;
}
var BalanceRef = builder.objectRef("AddressBalance").implement({
  description: "What the address holds (blockchain.scripthash.get_balance).",
  fields: (t) => ({
    confirmed: t.field({ type: Amount, resolve: (b) => b.confirmed }),
    unconfirmed: t.field({
      type: Amount,
      description: "The mempool's change to it; negative when the mempool spends from it.",
      resolve: (b) => b.unconfirmed
    })
  })
});
var HistoryEntryRef = builder.objectRef("AddressHistoryEntry").implement({
  description: "A transaction paying to or spending from the address.",
  fields: (t) => ({
    txid: t.field({ type: "TxId", resolve: (e) => e.txid }),
    height: t.int({
      description: "The block height; 0 in the mempool, -1 in the mempool with an unconfirmed parent.",
      resolve: (e) => e.height
    }),
    fee: t.field({
      type: Amount,
      nullable: true,
      description: "Mempool entries only, as the server reports it.",
      resolve: (e) => e.fee
    }),
    transaction: t.field({
      type: TransactionRef,
      description: "The transaction itself, priced as a getrawtransaction.",
      extensions: { cost: { method: "getrawtransaction" } },
      resolve: (e, _args, ctx) => transactionByTxid(ctx, e.txid)
    })
  })
});
var HistoryPageRef = builder.objectRef(
  "AddressHistory"
).implement({
  description: "A page of the address's history, oldest first, mempool last.",
  fields: (t) => ({
    total: t.int({ description: "Entries in the whole history.", resolve: (p) => p.total }),
    entries: t.field({ type: [HistoryEntryRef], resolve: (p) => p.entries })
  })
});
var UtxoRef = builder.objectRef("AddressUtxo").implement({
  description: "An unspent output of the address (blockchain.scripthash.listunspent).",
  fields: (t) => ({
    txid: t.field({ type: "TxId", resolve: (u) => u.txid }),
    vout: t.int({ resolve: (u) => u.vout }),
    height: t.int({ description: "0 when unconfirmed.", resolve: (u) => u.height }),
    value: t.field({ type: Amount, resolve: (u) => u.value })
  })
});
var HISTORY_PAGE = 50;
var AddressRef = builder.objectRef("Address").implement({
  description: "An address of the route's network, looked up through its Electrum servers by the script it stands for.",
  fields: (t) => ({
    address: t.string({ resolve: (a) => a.address }),
    scriptPubKey: t.field({ type: "Hex", resolve: (a) => toHex(a.script) }),
    scripthash: t.field({
      type: "Hex",
      description: "The Electrum protocol's script hash (sha256 of the script, reversed).",
      resolve: (a) => a.scripthash
    }),
    balance: t.field({
      type: BalanceRef,
      extensions: { cost: { method: "blockchain.scripthash.get_balance" } },
      resolve: async (a, _args, ctx) => {
        const answer = await ask(ctx.electrumCalls, {
          method: "blockchain.scripthash.get_balance",
          params: [a.scripthash]
        });
        if (!isJsonObject(answer))
          throw codedError("UPSTREAM_BAD_RESPONSE", "the balance is not an object");
        return { confirmed: sats(answer.confirmed), unconfirmed: sats(answer.unconfirmed) };
      }
    }),
    history: t.field({
      type: HistoryPageRef,
      description: `A page of the history (${HISTORY_PAGE} entries by default); the whole history is one call, priced once.`,
      args: {
        limit: t.arg.int({ defaultValue: HISTORY_PAGE }),
        offset: t.arg.int({ defaultValue: 0 })
      },
      extensions: { cost: { method: "blockchain.scripthash.get_history" } },
      resolve: async (a, { limit, offset }, ctx) => {
        if ((limit ?? 0) < 0 || (offset ?? 0) < 0 || (limit ?? 0) > ctx.app.config.graphql.listItemsMax) {
          throw codedError(
            "INVALID_PARAMS",
            `limit must be 0 \u2013 ${ctx.app.config.graphql.listItemsMax} and offset \u2265 0`
          );
        }
        const all = listOf(
          await ask(ctx.electrumCalls, {
            method: "blockchain.scripthash.get_history",
            params: [a.scripthash]
          }),
          "history"
        );
        const from = offset ?? 0;
        return {
          total: all.length,
          entries: all.slice(from, from + (limit ?? HISTORY_PAGE)).map((e) => ({
            txid: String(e.tx_hash),
            height: int(e.height),
            fee: e.fee === void 0 ? null : sats(e.fee)
          }))
        };
      }
    }),
    utxos: t.field({
      type: [UtxoRef],
      extensions: { cost: { method: "blockchain.scripthash.listunspent" } },
      resolve: async (a, _args, ctx) => listOf(
        await ask(ctx.electrumCalls, {
          method: "blockchain.scripthash.listunspent",
          params: [a.scripthash]
        }),
        "unspent list"
      ).map((u) => ({
        txid: String(u.tx_hash),
        vout: int(u.tx_pos),
        height: int(u.height),
        value: sats(u.value)
      }))
    })
  })
});
builder.queryFields((t) => ({
  address: t.field({
    type: AddressRef,
    description: "An address of the route's network: its balance, history (paginated) and unspent outputs, each priced as its Electrum call. Free by itself; an address of another network is INVALID_PARAMS.",
    args: { address: t.arg.string({ required: true }) },
    resolve: (_root, { address }, ctx) => {
      const script = addressToScript(address, ctx.network);
      if (!script) {
        throw codedError("INVALID_PARAMS", `not an address of ${ctx.network}: ${address}`);
      }
      return { address, script, scripthash: electrumScripthash(script) };
    }
  })
}));

// src/graphql/types/subscriptions.ts
import { GraphQLError as GraphQLError9 } from "graphql";
var ChainEventKind = builder.enumType("ChainEventKind", {
  values: {
    CONNECTED: { description: "The block joined the best chain." },
    DISCONNECTED: {
      description: "A reorganisation took the block off the best chain (announced before the blocks that replace it)."
    }
  }
});
var BlockEventRef = builder.objectRef("BlockEvent").implement({
  description: "A change of the route's network's best chain.",
  fields: (t) => ({
    kind: t.field({
      type: ChainEventKind,
      resolve: (e) => e.kind === "connected" ? "CONNECTED" : "DISCONNECTED"
    }),
    height: t.int({ resolve: (e) => e.height }),
    hash: t.field({ type: "BlockHash", resolve: (e) => e.hash }),
    previousHash: t.field({ type: "BlockHash", nullable: true, resolve: (e) => e.previousHash }),
    time: t.int({ description: "The header's time (Unix seconds).", resolve: (e) => e.time })
  })
});
var ChainEventStream = class {
  constructor(ctx, source) {
    this.ctx = ctx;
    this.source = source;
    this.stops = [
      ctx.app.events.subscribe(ctx.network, (e) => {
        this.queue.push(e);
        this.pump();
      }),
      ctx.app.events.onClose(() => this.end("done")),
      ctx.app.tokens.watchRevocation(
        ctx.owner.tokenId,
        () => this.end(codedError("UNAUTHENTICATED", "the token was revoked: the subscription ends"))
      )
    ];
    const closed = ctx.closed;
    if (closed) {
      const onClosed = () => this.finish();
      closed.addEventListener("abort", onClosed, { once: true });
      this.stops.push(() => closed.removeEventListener("abort", onClosed));
      if (closed.aborted) queueMicrotask(onClosed);
    }
    const expiresAt = ctx.owner.expiresAt?.getTime();
    this.expiry = expiresAt === void 0 ? null : setTimeout(
      () => this.end(codedError("UNAUTHENTICATED", "the token expired: the subscription ends")),
      Math.max(0, Math.min(expiresAt - Date.now(), 2 ** 31 - 1))
    );
    this.expiry?.unref();
  }
  ctx;
  source;
  queue = [];
  /** `next` calls not answered yet, in order (a consumer may ask again before an answer). */
  pending = [];
  ending = null;
  finished = false;
  /** An event is being charged: answers go out one at a time, in order. */
  charging = false;
  sequence = 0;
  stops;
  expiry;
  [Symbol.asyncIterator]() {
    return this;
  }
  next() {
    if (this.finished) return Promise.resolve({ done: true, value: void 0 });
    return new Promise((resolve) => {
      this.pending.push(resolve);
      this.pump();
    });
  }
  async return() {
    this.finish();
    return { done: true, value: void 0 };
  }
  end(why) {
    this.ending ??= why;
    this.pump();
  }
  /** Answers the oldest waiting `next` with what there is: a final error, the end, or an event. */
  pump() {
    if (this.charging || this.finished || this.pending.length === 0) return;
    if (this.ending !== null) {
      const why = this.ending;
      this.ending = "done";
      if (why === "done") this.finish();
      else this.pending.shift()({ done: false, value: why });
      return;
    }
    const event = this.queue.shift();
    if (!event) return;
    this.charging = true;
    void this.deliverable(event).then((delivery) => {
      this.charging = false;
      if (this.finished) return;
      if (delivery !== null) {
        if (delivery instanceof GraphQLError9 || this.source.last?.(delivery)) this.ending = "done";
        this.pending.shift()({ done: false, value: delivery });
      }
      this.pump();
    });
  }
  /** The chain event's delivery, charged; null when the source makes nothing of it. */
  async deliverable(event) {
    let value;
    try {
      value = await this.source.translate(event);
    } catch (err) {
      return err instanceof GraphQLError9 ? err : codedError("INTERNAL", "internal error");
    }
    if (value === null) return null;
    const ctx = this.ctx;
    this.sequence += 1;
    const { name } = this.source;
    const price = eventPrice(ctx.app.config, name, ctx.network);
    const cost = await meter(
      { ...ctx, requestId: `${ctx.requestId}.${this.sequence}`, startedAt: Date.now() },
      {
        calls: [{ kind: "priced", method: name, price }],
        execute: async () => ({
          value,
          outcomes: [{ kind: "answered", outcome: "ok", httpStatus: 200 }]
        })
      }
    );
    if (cost.ok) return value;
    const error = fromGatewayError(cost.error);
    return new GraphQLError9(`${error.message}: the subscription ends`, {
      extensions: { ...error.extensions, balance: cost.available, required: cost.required }
    });
  }
  /** Stops listening, and answers every waiting `next` with the end. */
  finish() {
    if (this.finished) return;
    this.finished = true;
    for (const stop of this.stops) stop();
    if (this.expiry) clearTimeout(this.expiry);
    for (const resolve of this.pending.splice(0)) resolve({ done: true, value: void 0 });
  }
};
var ConfirmationsRef = builder.objectRef("TransactionConfirmations").implement({
  description: "A transaction's place in the best chain after a block came or went.",
  fields: (t) => ({
    txid: t.field({ type: "TxId", resolve: (c) => c.txid }),
    confirmations: t.int({
      description: "0 in the mempool (or taken off the chain by a reorganisation).",
      resolve: (c) => c.confirmations
    }),
    blockHash: t.field({ type: "BlockHash", nullable: true, resolve: (c) => c.blockHash })
  })
});
var FeeRatesRef = builder.objectRef("MempoolFees").implement({
  description: "Core's fee estimates (estimatesmartfee) once a block came, per confirmation target.",
  fields: (t) => ({
    height: t.int({ description: "The tip the estimates follow.", resolve: (f) => f.height }),
    estimates: t.field({
      type: [
        builder.objectRef("MempoolFeeEstimate").implement({
          fields: (u) => ({
            target: u.int({ resolve: (e) => e.target }),
            satPerVbyte: u.float({ nullable: true, resolve: (e) => e.satPerVbyte })
          })
        })
      ],
      resolve: (f) => f.estimates
    })
  })
});
var AddressActivityRef = builder.objectRef("AddressActivity").implement({
  description: "What one block did to an address: the block's transactions paying to it or spending from it.",
  fields: (t) => ({
    address: t.string({ resolve: (a) => a.address }),
    kind: t.field({
      type: ChainEventKind,
      description: "DISCONNECTED: a reorganisation took the block, and this activity, off the chain.",
      resolve: (a) => a.kind === "connected" ? "CONNECTED" : "DISCONNECTED"
    }),
    height: t.int({ resolve: (a) => a.height }),
    hash: t.field({ type: "BlockHash", resolve: (a) => a.hash }),
    transactions: t.field({
      type: [
        builder.objectRef("AddressActivityTransaction").implement({
          fields: (u) => ({
            txid: u.field({ type: "TxId", resolve: (x) => x.txid }),
            received: u.field({
              type: Amount,
              description: "Paid to the address by the transaction's outputs.",
              resolve: (x) => x.received
            }),
            sent: u.field({
              type: Amount,
              description: "Spent from the address by the transaction's inputs.",
              resolve: (x) => x.sent
            })
          })
        })
      ],
      resolve: (a) => [...a.transactions]
    })
  })
});
function nodeOf(ctx) {
  const pool = ctx.app.nodes.get(ctx.network);
  if (!pool) throw codedError("UPSTREAM_UNAVAILABLE", "no full node for this network");
  return pool;
}
function delivered(delivery) {
  if (delivery instanceof GraphQLError9) throw delivery;
  return delivery;
}
builder.subscriptionType({});
builder.subscriptionFields((t) => ({
  newBlock: t.field({
    type: BlockEventRef,
    nullable: true,
    description: "Each block connected to (or, in a reorganisation, disconnected from) the route's network's best chain, as the gateway's chain follower sees it. Each event is charged `pricing.events.newBlock` as it is delivered; the subscription ends with one final error (null data) when the balance runs out or the token is revoked or expires.",
    subscribe: (_root, _args, ctx) => new ChainEventStream(ctx, newBlocks()),
    resolve: (delivery) => delivered(delivery)
  }),
  mempoolFees: t.field({
    type: FeeRatesRef,
    nullable: true,
    description: "Core's fee estimates (sat/vB) for the confirmation targets asked, after each block, when they changed. Each delivery is charged `pricing.events.mempoolFees`; it ends with one final error as newBlock does.",
    args: { targets: t.arg.intList({ defaultValue: [1, 6, 144] }) },
    subscribe: (_root, { targets }, ctx) => {
      const asked = targets ?? [1, 6, 144];
      if (!validTargets(asked)) {
        throw codedError("INVALID_PARAMS", "targets: 1 to 25 of 1 \u2013 1008 blocks");
      }
      return new ChainEventStream(ctx, feesOf(nodeOf(ctx), asked));
    },
    resolve: (delivery) => delivered(delivery)
  }),
  addressActivity: t.field({
    type: AddressActivityRef,
    nullable: true,
    description: "An address's activity in each block connected to (or disconnected from) the best chain: the block's transactions that pay to it or spend from it, with the amounts, delivered for a block with any (confirmed activity only; the mempool is not watched). Each delivery is charged `pricing.events.addressActivity`; it ends with one final error as newBlock does. An address of another network is INVALID_PARAMS.",
    args: { address: t.arg.string({ required: true }) },
    subscribe: (_root, { address }, ctx) => {
      const source = addressActivityOf(nodeOf(ctx), address, ctx.network);
      if (!source) {
        throw codedError("INVALID_PARAMS", `not an address of ${ctx.network}: ${address}`);
      }
      return new ChainEventStream(ctx, source);
    },
    resolve: (delivery) => delivered(delivery)
  }),
  transactionConfirmations: t.field({
    type: ConfirmationsRef,
    nullable: true,
    description: "A transaction's confirmations each time a block comes or goes and the count changed, until it reaches `until` (then the subscription completes). Each delivery is charged `pricing.events.transactionConfirmations`; it ends with one final error as newBlock does.",
    args: {
      txid: t.arg({ type: "TxId", required: true }),
      until: t.arg.int({ defaultValue: 6 })
    },
    subscribe: (_root, { txid, until }, ctx) => new ChainEventStream(ctx, confirmationsOf(nodeOf(ctx), txid.toLowerCase(), until ?? 6)),
    resolve: (delivery) => delivered(delivery)
  })
}));

// src/graphql/types/webhooks.ts
var WebhookEventEnum = builder.enumType("WebhookEvent", {
  values: Object.fromEntries(WEBHOOK_EVENTS.map((e) => [e, { value: e }]))
});
var AttemptRef = builder.objectRef("WebhookAttempt").implement({
  description: "One attempt at delivering a message: what the endpoint answered, and how fast.",
  fields: (t) => ({
    messageId: t.string({
      description: "The message's webhook-id (the same on every attempt).",
      resolve: (a) => a.messageId
    }),
    attempt: t.int({ resolve: (a) => a.attempt }),
    at: t.field({ type: "DateTime", resolve: (a) => a.at }),
    httpStatus: t.int({ nullable: true, resolve: (a) => a.httpStatus }),
    error: t.string({ nullable: true, resolve: (a) => a.error }),
    latencyMs: t.int({ resolve: (a) => a.latencyMs }),
    result: t.string({
      description: "delivered (accepted, charged), retry (another attempt is queued), failed (no more attempts), refused (not sent: the balance, the token or the target).",
      resolve: (a) => a.result
    })
  })
});
var EndpointRef = builder.objectRef("WebhookEndpoint").implement({
  fields: (t) => ({
    id: t.id({ resolve: (e) => String(e.id) }),
    url: t.string({ resolve: (e) => e.url }),
    network: t.string({ resolve: (e) => e.network }),
    event: t.string({ resolve: (e) => e.event }),
    txid: t.string({ nullable: true, resolve: (e) => e.args.txid ?? null }),
    address: t.string({ nullable: true, resolve: (e) => e.args.address ?? null }),
    until: t.int({ nullable: true, resolve: (e) => e.args.until ?? null }),
    targets: t.intList({ nullable: true, resolve: (e) => e.args.targets ?? null }),
    description: t.string({ nullable: true, resolve: (e) => e.description }),
    tokenId: t.id({ resolve: (e) => String(e.tokenId) }),
    createdAt: t.field({ type: "DateTime", resolve: (e) => e.createdAt }),
    endedAt: t.field({ type: "DateTime", nullable: true, resolve: (e) => e.endedAt }),
    endedWhy: t.string({ nullable: true, resolve: (e) => e.endedWhy }),
    attempts: t.field({
      type: [AttemptRef],
      description: "Its latest delivery attempts, newest first. Free.",
      args: { limit: t.arg.int({ defaultValue: 20 }) },
      resolve: (e, { limit }, ctx) => recentAttempts(ctx.app.db, e.id, Math.min(Math.max(limit ?? 20, 1), 200))
    })
  })
});
var CreatedRef = builder.objectRef("CreatedWebhook").implement({
  fields: (t) => ({
    endpoint: t.field({ type: EndpointRef, resolve: (c) => c.endpoint }),
    secret: t.string({
      description: "The signing secret (whsec_\u2026), shown this once: verify each delivery's webhook-signature with it (Standard Webhooks).",
      resolve: (c) => c.secret
    })
  })
});
builder.objectField(
  AccountRef,
  "webhooks",
  (t) => t.field({
    type: [EndpointRef],
    description: "The account's webhook endpoints, live ones first. Free.",
    resolve: (a, _args, ctx) => listEndpoints(ctx.app.db, a.id)
  })
);
builder.mutationFields((t) => ({
  createWebhook: t.field({
    type: CreatedRef,
    description: "Registers an endpoint told of the route's network's events by signed POSTs (Standard Webhooks), as the subscription of the same name would deliver them; retried with growing delays for a day. Needs an unrestricted token; the endpoint acts for it (its revocation ends the endpoint). Free; each accepted delivery is charged pricing.events.<event>.",
    args: {
      url: t.arg.string({ required: true }),
      event: t.arg({ type: WebhookEventEnum, required: true }),
      network: t.arg.string({
        required: false,
        description: "The network it follows; the route's when omitted."
      }),
      txid: t.arg({ type: "TxId", required: false }),
      address: t.arg.string({ required: false }),
      until: t.arg.int({ required: false }),
      targets: t.arg.intList({ required: false }),
      description: t.arg.string({ required: false })
    },
    resolve: async (_root, args, ctx) => {
      manager(ctx, "webhooks");
      try {
        return await registerEndpoint(
          ctx.app.db,
          ctx.app.config,
          ctx.app.webhookTargets,
          ctx.owner,
          {
            url: args.url,
            network: args.network ?? ctx.network,
            event: args.event,
            args: {
              ...args.txid ? { txid: args.txid } : {},
              ...args.address ? { address: args.address } : {},
              ...args.until != null ? { until: args.until } : {},
              ...args.targets ? { targets: args.targets } : {}
            },
            description: args.description ?? null
          }
        );
      } catch (err) {
        if (err instanceof Refused) throw codedError("INVALID_PARAMS", err.message);
        throw err;
      }
    }
  }),
  deleteWebhook: t.boolean({
    description: "Ends one of the account's endpoints: nothing more is sent to it. Free.",
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, { id }, ctx) => {
      const accountId = manager(ctx, "webhooks");
      const n = Number(id);
      if (!Number.isSafeInteger(n) || !await endEndpoint(ctx.app.db, n, "deleted", accountId)) {
        throw codedError("NOT_FOUND", `no live webhook endpoint ${id} on this account`);
      }
      return true;
    }
  })
}));

// src/graphql/schema.ts
var gatewaySchema = builder.toSchema();

// src/graphql/yoga.ts
var YOGA_PATH = "/graphql";
function createGatewayYoga(config, log, documents) {
  return createYoga({
    schema: gatewaySchema,
    graphqlEndpoint: YOGA_PATH,
    // Served from the package, not a CDN: GraphiQL works offline, with the token's path applied.
    renderGraphiQL,
    graphiql: (_request, ctx) => ({
      endpoint: ctx.publicPath,
      title: `blockgate \u2014 ${ctx.network}`,
      defaultQuery: DEFAULT_QUERY,
      // The first payment opens; a tab per typed chain field beside it (one operation each, so
      // ▶ runs it at once).
      defaultTabs: [DEFAULT_QUERY, ...EXAMPLES].map((query) => ({ query }))
    }),
    landingPage: false,
    batching: false,
    // Yoga's own cache keeps parse and validation errors, each holding its request's context
    // through its stack, and is bounded by count only: the document cache plugin (below) keeps
    // documents within graphql.documentCacheBytesMax and remembers only successes.
    parserAndValidationCache: false,
    // Bodies reach Yoga as text already read within server.bodyBytesMax (Fastify's bodyLimit for
    // every route, the dashboard's too: 413 at the edge). Yoga's own bound would pipe each body
    // through a TransformStream and build a second Request to count it again: ~2% of a request's
    // CPU, protecting nothing.
    maxRequestBodySize: false,
    logging: false,
    // The client reads INTERNAL and a plain message; the cause goes to the log (Yoga's own
    // logging is off, so this is where it is kept).
    maskedErrors: {
      maskError: (error, message, isDev) => maskError(
        error,
        message,
        isDev,
        (cause, path) => log.error({ err: cause, path }, "unexpected error in the unified API")
      )
    },
    plugins: [
      documentCachePlugin(documents),
      EnvelopArmorPlugin({
        maxTokens: { n: config.graphql.tokensMax },
        maxDepth: { n: config.graphql.depthMax, ignoreIntrospection: true },
        maxAliases: { n: config.graphql.aliasesMax },
        maxDirectives: { n: 50 },
        costLimit: { enabled: false },
        // our cost plugin prices and limits by credits instead
        blockFieldSuggestion: { enabled: false }
        // the schema is public (introspection is on)
      }),
      errorCodesPlugin(),
      costPlugin()
    ]
  });
}
var DEFAULT_QUERY = `# blockgate: one GraphQL API over Bitcoin. Try it:
query FirstPayment {
  transaction(txid: "f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16") {
    txid
    status
    confirmations
    outputs { n value { btc sats } scriptPubKey { type address } }
  }
  account { available }
}
`;
var EXAMPLES = [
  `# A block from the full node, by height (getblockhash + getblock + a page of transactions)
query Block170 {
  nodeBlock(height: 170) {
    hash time confirmations transactionCount
    transactions(limit: 2) { txid fee { btc } }
  }
}

`,
  `# The chain's state and Core's fee estimates
query Chain {
  chain { name height difficulty mempool { transactionCount totalFee { btc } } }
  feeEstimates(targets: [1, 6, 144]) { target blocks satPerVbyte errors }
}

`,
  `# An address through the Electrum servers: balance, a page of history, unspent outputs
query BusyAddress {
  address(address: "1HckjUpRGcrrRAtFaaCAUaGjsPx9oYmLaZ") {
    balance { confirmed { btc } unconfirmed { btc } }
    history(limit: 10) { total entries { txid height } }
    utxos { txid vout value { btc } }
  }
}

`,
  `# Core's merkle proof that the first payment is in block 170
query Proof {
  transaction(txid: "f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16") {
    merkleProof { blockHash hex }
  }
}
`,
  `# Each block as the chain follower announces it (Server-Sent Events), charged per block
subscription NewBlock {
  newBlock { kind height hash }
}
`
];

// src/graphql/run.ts
var yogas = /* @__PURE__ */ new WeakMap();
var documentCaches = /* @__PURE__ */ new WeakMap();
function documentCacheOf(app) {
  return documentCaches.get(app);
}
function gatewayDocuments(app) {
  gatewayYoga(app);
  return documentCaches.get(app);
}
function gatewayYoga(app) {
  let yoga = yogas.get(app);
  if (!yoga) {
    const documents = new DocumentCache(app.config.graphql.documentCacheBytesMax);
    documentCaches.set(app, documents);
    yoga = createGatewayYoga(app.config, app.log, documents);
    yogas.set(app, yoga);
  }
  return yoga;
}
async function runYoga(ctx, call, prepare = () => {
}, made) {
  const { app } = ctx;
  const { req } = call;
  const yoga = gatewayYoga(app);
  const url = new URL(req.url ?? "/", "http://gateway");
  const closed = new Cancel();
  const onClose = () => closed.abort(new DOMException("the client's connection closed", "AbortError"));
  req.socket?.once("close", onClose);
  const context = made ?? gatewayContext(ctx, {
    publicPath: call.publicPath,
    dryRun: req.headers["x-dry-run"] === "true" || req.headers["x-dry-run"] === "1",
    closed
  });
  prepare(context.state);
  const headers = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === "string") headers[name] = value;
    else if (Array.isArray(value)) headers[name] = value.join(", ");
  }
  const method = req.method ?? "GET";
  let response;
  try {
    response = await yoga.fetch(
      `http://gateway${YOGA_PATH}${url.search}`,
      {
        method,
        headers,
        ...method === "GET" || method === "HEAD" ? {} : { body: readableBody(app, call.body) }
      },
      context
    );
  } catch (err) {
    req.socket?.off("close", onClose);
    throw err;
  }
  const out = {};
  response.headers.forEach((value, name) => {
    if (name !== "content-length") out[name] = value;
  });
  if (response.body && (response.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
    return {
      reply: { status: response.status, body: null, headers: out, stream: response.body },
      context
    };
  }
  req.socket?.off("close", onClose);
  const raw = new Uint8Array(await response.arrayBuffer());
  if (response.status === 415 && raw.byteLength === 0) {
    return {
      reply: graphqlFailure(
        gatewayError(
          "UNSUPPORTED_MEDIA_TYPE",
          "send the request as application/json (or the query in the URL, with GET)"
        )
      ),
      context
    };
  }
  return { reply: { status: response.status, body: null, raw, headers: out }, context };
}
function readableBody(app, body) {
  return jsonDepthOver(body, app.config.server.jsonDepthMax) ? "{" : body;
}
function gatewayContext(ctx, opts) {
  const { app } = ctx;
  const state = {
    meter: { calls: /* @__PURE__ */ new Map(), graph: { answered: 0, complexity: 0 }, cacheHits: 0 },
    wantsPrevouts: false,
    wantsPosition: true,
    graphSites: /* @__PURE__ */ new Map(),
    joinBudget: /* @__PURE__ */ new Map()
  };
  const context = {
    ...ctx,
    publicPath: opts.publicPath,
    dryRun: opts.dryRun,
    state,
    nodeTransactions: nodeTransactionLoader(app, ctx.network, state.meter, state),
    electrumTransactions: electrumTransactionLoader(app, ctx.network, state.meter),
    nodeCalls: nodeCallLoader(ctx, state.meter),
    electrumCalls: electrumCallLoader(ctx, state.meter),
    blocksBySite: /* @__PURE__ */ new Map(),
    ...opts.closed ? { closed: opts.closed } : {}
  };
  return context;
}

// src/graphql/query-plans/serve.ts
var encoder2 = new TextEncoder();
var decoder3 = new TextDecoder();
var written = /* @__PURE__ */ new WeakMap();
function writable(data, passthrough) {
  const seen = written.get(data);
  if (seen?.passthrough === passthrough) return seen.text;
  const text = fits(data, passthrough.shape) ? dataText(data, passthrough) : null;
  written.set(data, { passthrough, text });
  return text;
}
async function servePlanned(ctx, call, request, plan, key) {
  const { app } = ctx;
  const plans = plansOf(app);
  if (!literalsFit(plan.literals, request.shape)) return null;
  const passthrough = passthroughOf(
    gatewaySchema,
    request.document,
    plan.operationName,
    request.variables
  );
  if (!passthrough) return serveNodePlanned(ctx, call, request, plan, key);
  const estimate = planEstimate(ctx, plan, request);
  if (estimate instanceof GraphQLError10 || !estimate.graph || estimate.items.length > 0) {
    return null;
  }
  const { complexity } = estimate.graph;
  const cost = await meter(ctx, {
    calls: [{ kind: "priced", method: METHOD, price: estimate.total, complexity }],
    execute: async () => {
      const trip = await indexerTrip(ctx, indexerRequest(passthrough, request.variables));
      const text = trip.ok ? writable(trip.data, passthrough) : null;
      if (text !== null) {
        plans.stats.served += 1;
        const actual = graphPrice(app.config, ctx.network, complexity);
        const outcome = {
          kind: "answered",
          outcome: "ok",
          httpStatus: 200,
          chargedCc: actual,
          complexity,
          cacheHits: 0
        };
        const lines = [graphLine(ctx, passthrough.sites, complexity)];
        return {
          value: {
            render: (report) => resultText(text, report),
            status: 200,
            headers: plan.headers,
            actual,
            complexity,
            lines
          },
          outcomes: [outcome]
        };
      }
      plans.stats.executed += 1;
      if (trip.ok) plans.forget(request.key);
      return executeReserved(ctx, call, trip.ok ? void 0 : trip);
    }
  });
  return { reply: plannedReply(cost, estimate.total, plan).reply };
}
async function serveNodePlanned(ctx, call, request, plan, key) {
  const { app } = ctx;
  const node = nodePlanOf(gatewaySchema, request.document, plan.operationName);
  const asks = node && nodeAsks(gatewaySchema, node, request.variables);
  if (!node || !asks) return null;
  const estimate = planEstimate(ctx, plan, request);
  if (estimate instanceof GraphQLError10 || estimate.graph) return null;
  const context = gatewayContext(ctx, { publicPath: call.publicPath, dryRun: false });
  context.state.wantsPrevouts = estimate.wantsPrevouts;
  context.state.wantsPosition = estimate.wantsPosition;
  if (key !== null) context.state.answerKey = key;
  const planned = {};
  const cost = await meter(ctx, {
    calls: [{ kind: "priced", method: METHOD, price: estimate.total, complexity: null }],
    execute: async () => {
      const found = await loadAsked(context, asks);
      const written3 = nodeData(node, found, key !== null);
      if (written3 === null) {
        plansOf(app).stats.executed += 1;
        return executeReserved(ctx, call, void 0, context);
      }
      plansOf(app).stats.served += 1;
      planned.written = written3;
      const text = written3.dataText;
      for (const model of found.flat())
        if (model && !(model instanceof Error)) noteRoot(context, model);
      const { outcome, actual } = executedFigures(context, estimate, { data: {} });
      return {
        value: {
          render: (report2) => resultText(text, report2),
          status: 200,
          headers: plan.headers,
          actual,
          complexity: null,
          lines: costLines(context)
        },
        outcomes: [outcome]
      };
    }
  });
  const { reply, report } = plannedReply(cost, estimate.total, plan);
  const { written: written2 } = planned;
  if (key === null || !written2 || !cost.ok || !report) return { reply };
  keepPlannedIfFinal(
    context,
    {
      schema: gatewaySchema,
      document: request.document,
      operationName: plan.operationName,
      variableValues: request.variables
    },
    written2,
    {
      estimated: estimate.total,
      estimatedComplexity: null,
      actual: cost.value.actual,
      complexity: null,
      report,
      creditHeaders: Object.keys(cost.headers)
    }
  );
  return { reply, ...context.state.pending ? { pending: context.state.pending } : {} };
}
function planEstimate(ctx, plan, request) {
  return requestEstimate(
    ctx.app,
    ctx.network,
    gatewaySchema,
    request.document,
    plan.operationName,
    request.variables
  );
}
function plannedReply(cost, estimated, plan) {
  if (!cost.ok) return { reply: refusalReply(cost, { ...plan.headers, ...cost.headers }) };
  const answered = cost.value;
  const report = costReport({
    estimated,
    actual: answered.actual,
    charged: cost.charged,
    balance: cost.available,
    complexity: answered.complexity,
    calls: answered.lines
  });
  return {
    reply: {
      status: answered.status,
      body: null,
      raw: encoder2.encode(answered.render(report)),
      headers: { ...answered.headers, ...cost.headers }
    },
    report
  };
}
async function executeReserved(ctx, call, failedTrip, made) {
  const { reply, context } = await runYoga(
    ctx,
    call,
    (state) => {
      state.reserved = {};
      if (failedTrip) state.failedTrip = failedTrip;
    },
    made
  );
  const figures = context.state.reserved?.figures;
  const text = reply.raw ? decoder3.decode(reply.raw) : "";
  const outcome = figures?.outcome ?? {
    kind: "failed",
    error: gatewayError("INTERNAL", "the planned request was not executed")
  };
  return {
    value: {
      // Yoga wrote COST_MARK where the report goes.
      render: (report) => writeCost(text, report) ?? text,
      status: reply.status,
      headers: reply.headers ?? {},
      actual: figures?.actual ?? 0,
      complexity: figures?.complexity ?? null,
      lines: costLines(context)
    },
    outcomes: [outcome]
  };
}

// src/graphql/socket.ts
import { GraphQLError as GraphQLError11 } from "graphql";
import { CloseCode, makeServer } from "graphql-ws";
function serveGraphQLOverSocket(socket, session, { yoga, contextFor }) {
  let operations = 0;
  const server = makeServer({
    // Every message must be answered by the operation it belongs to; nothing runs outside one.
    onSubscribe: async (_ctx, id, payload) => {
      const owner = await session.stillValid();
      if (!owner) {
        setImmediate(() => socket.close(1008, "token no longer valid"));
        return [codedError("UNAUTHENTICATED", "the token is no longer valid")];
      }
      const admission = await session.admit(owner);
      if (!admission.ok) return [fromGatewayError(admission.error)];
      admission.release?.();
      operations += 1;
      const context = contextFor({
        ...session.ctx,
        owner,
        requestId: `${session.ctx.requestId}.${operations}`,
        startedAt: Date.now()
      });
      const { schema: schema2, execute, subscribe, parse: parse2, validate } = yoga.getEnveloped(context);
      let document;
      try {
        document = parse2(payload.query);
      } catch (err) {
        return [
          err instanceof GraphQLError11 ? err : codedError("GRAPHQL_PARSE_FAILED", String(err))
        ];
      }
      const errors = validate(schema2, document);
      if (errors.length > 0) return errors;
      return {
        schema: schema2,
        document,
        operationName: payload.operationName ?? null,
        variableValues: payload.variables ?? null,
        contextValue: context,
        rootValue: { execute, subscribe, id }
      };
    },
    execute: (args) => args.rootValue.execute(args),
    subscribe: (args) => args.rootValue.subscribe(args)
  });
  const closed = server.opened(
    {
      protocol: socket.protocol,
      send: (data) => new Promise((resolve, reject) => {
        socket.send(data, (err) => err ? reject(err) : resolve());
      }),
      close: (code, reason) => socket.close(code, reason),
      onMessage: (cb) => {
        socket.on("message", (data) => {
          session.inFlight(() => cb(String(data))).catch((err) => {
            socket.close(CloseCode.InternalServerError, err instanceof Error ? err.message : "");
          });
        });
      }
    },
    { socket }
  );
  socket.once("close", (code, reason) => void closed(code, String(reason)));
}

// src/graphql/route.ts
async function executeGraphQL(ctx, call) {
  const { app } = ctx;
  const { req } = call;
  const key = answerKey(app, ctx.network, req, call.body);
  if (key !== null) {
    const kept = await app.gatewayAnswers.get(ctx.network, key);
    if (kept) return serveAnswer(ctx, kept);
  }
  const plans = plansOf(app);
  const planned = planRequest(app, ctx.network, req, call.body, gatewayDocuments(app));
  const plan = planned ? plans.get(planned.key) : void 0;
  if (planned && plan) {
    const served = await servePlanned(ctx, call, planned, plan, key);
    if (served) {
      if (key !== null) keptOrNot(ctx, key, served.pending, served.reply);
      return served.reply;
    }
  }
  const { reply, context } = await runYoga(ctx, call, (state) => {
    if (key !== null) state.answerKey = key;
    if (planned && !plan && plans.worthLearning(planned.key)) state.planning = true;
  });
  if (reply.raw === void 0) return reply;
  const { pending, planCandidate: planCandidate2 } = context.state;
  const answer = { status: reply.status, raw: reply.raw, headers: reply.headers ?? {} };
  if (key !== null) keptOrNot(ctx, key, pending, reply);
  if (planned && planCandidate2) learnPlan(context, planned, planCandidate2, answer);
  return reply;
}
function keptOrNot(ctx, key, pending, { status, raw, headers = {} }) {
  const { app } = ctx;
  if (pending && raw) keepAnswer(app, ctx.network, key, pending, { status, raw, headers });
  else app.gatewayAnswers.executed(key);
}
function handleGateway(ctx, body, req) {
  return executeGraphQL(ctx, {
    req,
    body,
    publicPath: new URL(req.url ?? "/", "http://gateway").pathname
  });
}
function serveGraphQLSocket(socket, session) {
  serveGraphQLOverSocket(socket, session, {
    yoga: gatewayYoga(session.ctx.app),
    contextFor: (ctx) => gatewayContext(ctx, { publicPath: "", dryRun: false })
  });
}
export {
  documentCacheOf,
  executeGraphQL,
  gatewayYoga,
  handleGateway,
  serveGraphQLSocket
};
