import {
  type DocumentNode,
  type FieldNode,
  GraphQLError,
  type GraphQLField,
  type GraphQLSchema,
  getArgumentValues,
  getNullableType,
  getOperationAST,
  getVariableValues,
  isListType,
} from "graphql";
import { graphComplexity, listSize } from "../../../billing/pricing/graph-complexity.ts";
import { descriptorBranchCount } from "../../../bitcoin/output-descriptor.ts";
import type { Config } from "../../../config/schema.ts";
import { type CollectedField, walkSelections } from "../../../protocol/graphql/selection.ts";
import {
  refusedArguments,
  type SelectedField,
  selectedField,
} from "../../../protocol/hasura/check.ts";
import { checkGraphLimits } from "../../../protocol/hasura/limits.ts";
import { indexerSchema } from "../../../protocol/hasura/schema.ts";
import { overlongList } from "../../../util/list-items.ts";
import type { FieldCost, FieldFanOut, IndexerSite } from "../builder.ts";
import { codedError } from "../errors.ts";
import { indexerColumn, indexerRootField, indexerTypeOf, isReservedAlias } from "../indexer.ts";

export interface CostItem {
  path: string;
  method: string;
  count: number;
  unitPrice: number;
  subtotal: number;
}

/** A field that becomes an indexer query each time it resolves (a delegation site). */
export interface GraphSite {
  path: string;
  /** The indexer root field it is delegated to. */
  rootField: string;
  /** How many times it can resolve: the product of the sizes of the lists around it. */
  count: number;
  /** The complexity of one resolution: the graph route's formula over its indexer selection. */
  complexity: number;
}

/** The indexer's share of a request: one graph price for all its sites. */
export interface GraphEstimate {
  /** Σ count × complexity over the sites. */
  complexity: number;
  /** graph base + ceil(complexity × perPoint). */
  price: number;
  sites: GraphSite[];
}

export interface CostEstimate {
  total: number;
  items: CostItem[];
  /** The indexer's share; null when nothing in the document reaches the indexer. */
  graph: GraphEstimate | null;
  /** The operation selects fee or prevout somewhere: the node must be asked at verbosity 2. */
  wantsPrevouts: boolean;
  /**
   * The operation selects a field of Transaction that reads where it was mined (POSITION_FIELDS):
   * the node must be asked at verbosity 1 at least. Without one, its hex (verbosity 0) is all the
   * answer is made of.
   */
  wantsPosition: boolean;
}

/**
 * The fields of Transaction whose resolvers read the model's block position (models.ts `block`),
 * which only a verbose getrawtransaction gives: every other field is read from the transaction's
 * bytes. A field added to Transaction that reads `block` must be named here.
 */
export const POSITION_FIELDS: ReadonlySet<string> = new Set([
  "status",
  "confirmations",
  "blockhash",
  "blocktime",
  "time",
  "block",
  "merkleProof",
]);

export interface EstimateOptions {
  price(method: string): number;
  listItemsMax: number;
  /** Addresses a descriptor scan may look up (graphql.descriptorAddressesMax): what it reserves. */
  descriptorAddressesMax: number;
  /** The graph route's weights, list sizes and limits, and its price for a complexity. */
  graph: { limits: Config["graph"]; price(complexity: number): number };
}

/**
 * Where the walk is: the response path, the product of the sizes of the lists around it, and
 * inside an indexer selection the indexer field whose children come next.
 */
interface Place {
  path: string;
  multiplier: number;
  scope: SelectedField | undefined;
}

/**
 * The most a request can cost, from the document alone, walked as execution collects it
 * (src/protocol/graphql/selection.ts). Two kinds of price, summed: per call, Σ unit price × items
 * asked × the sizes of the enclosing lists; and the indexer's, one graph price (base +
 * ceil(Σ site count × complexity × perPoint)) when any field is delegated to the indexer, whose
 * sites' selections also meet the graph route's limits. Deduplication and missing rows can only
 * make the actual charge smaller.
 */
export function estimateCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  given: Record<string, unknown>,
  opts: EstimateOptions,
): CostEstimate | GraphQLError {
  const operation = getOperationAST(document, operationName);
  if (!operation)
    return new GraphQLError("no operation to run", { extensions: { code: "BAD_USER_INPUT" } });
  // The variables as the executor will see them: a default of the operation's (`$x: Boolean =
  // false`) applied where the request gave none, which `@include(if: $x)` and the arguments read.
  // Variables that do not coerce are left as given: execution refuses them, before any resolver.
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], given);
  const variables = coerced.coerced ?? given;
  const root = schema.getRootType(operation.operation);
  if (!root)
    return new GraphQLError(`no ${operation.operation} type`, {
      extensions: { code: "BAD_USER_INPUT" },
    });
  const walk = new EstimateWalk(variables, opts, coerced.coerced ? opts.listItemsMax : undefined);
  let graph: GraphEstimate | null = null;
  try {
    const start: Place = { path: "", multiplier: 1, scope: undefined };
    const top = { type: root, selectionSet: operation.selectionSet };
    walkSelections(schema, document, variables, top, start, (f, at) => walk.visit(f, at));
    if (walk.sites.size > 0) graph = graphEstimate(walk.sites, opts.graph, opts.listItemsMax);
  } catch (err) {
    if (err instanceof GraphQLError) return err;
    throw err;
  }
  const { items, wantsPrevouts, wantsPosition } = walk;
  const perCall = items.reduce((sum, i) => sum + i.subtotal, 0);
  return { total: perCall + (graph?.price ?? 0), items, graph, wantsPrevouts, wantsPosition };
}

/** What one walk of a document finds: priced items, indexer sites, what the node is asked for. */
class EstimateWalk {
  readonly items: CostItem[] = [];
  readonly sites = new Map<string, { root: SelectedField; rootField: string; count: number }>();
  wantsPrevouts = false;
  wantsPosition = false;

  constructor(
    private readonly variables: Record<string, unknown>,
    private readonly opts: EstimateOptions,
    /** Set when the variables coerced: the lists in arguments are then bounded. */
    private readonly listsMax: number | undefined,
  ) {}

  /** A field's arguments as the executor coerces them, once per field of the document. */
  private readonly args = new Map<FieldNode, Record<string, unknown>>();

  private argsOf(field: GraphQLField<unknown, unknown>, selection: FieldNode) {
    let args = this.args.get(selection);
    if (!args) {
      args = getArgumentValues(field, selection, this.variables);
      this.args.set(selection, args);
    }
    return args;
  }

  visit(f: CollectedField, at: Place): Place | undefined {
    const { node: selection, def: field, parentType: parent } = f;
    const name = selection.name.value;
    if (name === "fee" || name === "prevout") this.wantsPrevouts = true;
    if (parent.name === "Transaction" && POSITION_FIELDS.has(name)) this.wantsPosition = true;
    if (!field) return undefined; // __typename and introspection are free
    const key = `${at.path}${at.path ? "." : ""}${f.responseKey}`;
    if (this.listsMax !== undefined && selection.arguments?.length) {
      refuseLongLists(this.argsOf(field, selection), key, this.listsMax);
    }
    const site = field.extensions?.indexer as IndexerSite | undefined;
    const table = at.scope ? indexerTypeOf(parent.name) : undefined;
    const indexerDef = site
      ? indexerRootField(site.rootField)
      : table
        ? indexerColumn(parent.name, name)
        : undefined;
    if (indexerDef) return this.indexerField(f, at, key, indexerDef, site, table);
    return this.pricedField(f, at, key);
  }

  /** A field the indexer answers: a site of its own (a root field), or a column under one. */
  private indexerField(
    f: CollectedField,
    at: Place,
    key: string,
    indexerDef: GraphQLField<unknown, unknown>,
    site: IndexerSite | undefined,
    table: string | undefined,
  ): Place {
    const { node: selection, def: field } = f;
    const { multiplier, scope } = at;
    if (table && selection.alias && isReservedAlias(selection.alias.value)) {
      throw codedError(
        "INVALID_PARAMS",
        `${key}: aliases beginning with _join_ are kept for the gateway's join keys`,
      );
    }
    // What the indexer would refuse (explicit nulls, negative limits) is refused here, in its
    // words, before anything is reserved: the graph route's own check on the indexer's field.
    if (selection.arguments?.length) {
      const where = `$.selectionSet.${key.replaceAll(".", ".selectionSet.")}`;
      const refused = refusedArguments(
        indexerSchema(),
        indexerDef,
        selection,
        this.variables,
        where,
      );
      if (refused)
        throw codedError("INVALID_PARAMS", refused.message, { at: refused.extensions.path });
    }
    const list = isListType(getNullableType(field!.type));
    const place = site
      ? { name: site.rootField, parentType: "query_root", depth: 1 }
      : { name: selection.name.value, parentType: table!, depth: scope!.depth + 1 };
    const node = selectedField(f, { ...place, path: key, list });
    if (site) this.sites.set(key, { root: node, rootField: site.rootField, count: multiplier });
    else scope!.children.push(node);
    node.args = this.argsOf(field!, selection);
    const size = this.opts.graph.limits.listSizeDefault;
    const inner = node.list ? multiplier * listSize(node, size) : multiplier;
    return { path: key, multiplier: inner, scope: node };
  }

  /** A field of ours: its upstream calls priced, times the lists it sits under. */
  private pricedField(f: CollectedField, at: Place, key: string): Place {
    const { node: selection, def: field } = f;
    const { multiplier } = at;
    const list = isListType(getNullableType(field!.type));
    const cost = field!.extensions?.cost as FieldCost | undefined;
    const fanOut = field!.extensions?.fanOut as FieldFanOut | undefined;
    if (!cost && !fanOut) return { path: key, multiplier, scope: undefined };
    const args = this.argsOf(field!, selection);
    if (fanOut) {
      if (cost) this.item(key, cost.method, multiplier);
      return { path: key, multiplier: multiplier * fanOutCount(fanOut, args), scope: undefined };
    }
    if (!cost) return { path: key, multiplier, scope: undefined };
    const count = cost.scan
      ? scanCount(cost.scan, args, key, this.opts.descriptorAddressesMax)
      : askedCount(cost, args);
    // A list argument's length, or a join under indexer lists: either way, lookups at once.
    const itemsMax = this.opts.listItemsMax;
    if (count * multiplier > itemsMax) {
      throw codedError(
        "LIMIT_EXCEEDED",
        `${key}: ${count * multiplier} items asked, at most ${itemsMax} in one request`,
        { limit: itemsMax },
      );
    }
    // Where an argument picks the upstream (source: ELECTRUM), that upstream's price applies.
    const method = cost.methodByArg
      ? (cost.methodByArg.methods[String(args[cost.methodByArg.arg])] ?? cost.method)
      : cost.method;
    this.item(key, method, count * multiplier);
    const also = cost.alsoWhenArg;
    if (also && args[also.arg] !== undefined && args[also.arg] !== null) {
      this.item(key, also.method, multiplier);
    }
    const inner = list || cost.scan ? multiplier * count : multiplier;
    return { path: key, multiplier: inner, scope: undefined };
  }

  private item(path: string, method: string, count: number): void {
    const unitPrice = this.opts.price(method);
    this.items.push({ path, method, count, unitPrice, subtotal: unitPrice * count });
  }
}

/** How many times a fan-out field's children resolve, at most: its list's length, or its page. */
function fanOutCount(fanOut: FieldFanOut, args: Record<string, unknown>): number {
  if (fanOut.listArg) {
    const asked = args[fanOut.listArg];
    return Array.isArray(asked) ? asked.length : fanOut.default;
  }
  for (const arg of fanOut.countArgs ?? []) {
    const asked = args[arg];
    if (typeof asked === "number") return Math.max(0, asked);
  }
  return fanOut.default;
}

/** How many items a priced field asks for: its list argument's length, or its count argument. */
function askedCount(cost: FieldCost, args: Record<string, unknown>): number {
  let count = 1;
  if (cost.listArg) {
    const asked = args[cost.listArg];
    count = Array.isArray(asked) ? asked.length : 1;
  }
  if (cost.countArg) {
    const asked = args[cost.countArg.arg];
    count = typeof asked === "number" ? Math.max(0, asked) : cost.countArg.default;
  }
  return count;
}

/**
 * A scan's reservation: the most addresses it may look up. A gap that cannot fit on every branch
 * is refused here, before anything is reserved or asked.
 */
function scanCount(
  scan: NonNullable<FieldCost["scan"]>,
  args: Record<string, unknown>,
  key: string,
  addressesMax: number,
): number {
  const gap = typeof args[scan.gapArg] === "number" ? (args[scan.gapArg] as number) : 20;
  const descriptor = args[scan.descriptorArg];
  const branches = typeof descriptor === "string" ? descriptorBranchCount(descriptor) : 1;
  if (gap < 1) throw codedError("INVALID_PARAMS", `${key}: ${scan.gapArg} must be at least 1`);
  if (gap * branches > addressesMax) {
    throw codedError(
      "LIMIT_EXCEEDED",
      `${key}: ${scan.gapArg} ${gap} on ${branches} branch(es) scans more than ${addressesMax} addresses (graphql.descriptorAddressesMax)`,
      { limit: addressesMax },
    );
  }
  return addressesMax;
}

/**
 * Every list in a field's arguments — `txids`, `targets`, an `_in` deep in a `where` — holds at
 * most `itemsMax` items, however it came (written in the document or given as a variable): a long
 * list is work for an upstream that no price stands for. Checked only on variables that coerced
 * (execution refuses the others before any resolver runs).
 */
function refuseLongLists(args: Record<string, unknown>, key: string, itemsMax: number): void {
  const long = overlongList(args, itemsMax);
  if (!long) return;
  throw codedError(
    "LIMIT_EXCEEDED",
    `${key}: ${long.items} items in the list ${long.path}, at most ${itemsMax} in one list`,
    { limit: itemsMax, at: `${key}.${long.path}` },
  );
}

/** The sites' prices and limits, as the graph route prices and limits one query. */
function graphEstimate(
  sites: Map<string, { root: SelectedField; rootField: string; count: number }>,
  graph: EstimateOptions["graph"],
  listItemsMax: number,
): GraphEstimate {
  const { limits } = graph;
  const overLimit = checkGraphLimits(
    [...sites.values()].map((s) => s.root),
    limits,
    listItemsMax,
  );
  if (overLimit) {
    throw codedError("LIMIT_EXCEEDED", overLimit.message, {
      limit: overLimit.extensions.code,
      at: overLimit.extensions.path,
    });
  }
  const costs: GraphSite[] = [...sites].map(([path, s]) => ({
    path,
    rootField: s.rootField,
    count: s.count,
    complexity: graphComplexity([s.root], limits),
  }));
  const complexity = costs.reduce((sum, s) => sum + s.count * s.complexity, 0);
  if (complexity > limits.complexityMax) {
    throw codedError(
      "LIMIT_EXCEEDED",
      `the indexer's share of the query has complexity ${complexity}; the limit is ${limits.complexityMax}: ask for fewer rows`,
      { limit: "complexity-limit-exceeded" },
    );
  }
  return { complexity, price: graph.price(complexity), sites: costs };
}
