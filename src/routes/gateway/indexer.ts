import {
  delegateToSchema,
  Subschema,
  type SubschemaConfig,
  type Transform,
} from "@graphql-tools/delegate";
import { RenameTypes } from "@graphql-tools/wrap";
import {
  type DocumentNode,
  type ExecutionResult,
  type FieldNode,
  GraphQLError,
  type GraphQLField,
  type GraphQLResolveInfo,
  isObjectType,
  Kind,
  OperationTypeNode,
  print,
  type SelectionSetNode,
  TypeInfo,
  visit,
  visitWithTypeInfo,
} from "graphql";
import { gatewayError, graphqlCodeOf } from "../../protocol/errors/codes.ts";
import type { GraphRequest } from "../../protocol/hasura/request.ts";
import { indexerSchema } from "../../protocol/hasura/schema.ts";
import type { IndexerOutcome } from "../../upstreams/indexer/pool.ts";
import type { IndexerSite } from "./builder.ts";
import type { GraphQLContext } from "./context.ts";
import { sitePath } from "./cost/site-path.ts";
import { fromGatewayError } from "./errors.ts";
import type { GatewayCallContext } from "./services.ts";

/**
 * The indexer (graph backend) as a subschema of the unified API. Pothos declares the unified
 * schema, mirror types included (types/block.ts); the fields that reach the indexer resolve by
 * delegateToSchema to this subschema: its schema is schema/indexer.graphql, its executor the
 * gateway's indexer pool for the request's network, and its transforms map the unified names
 * back onto the indexer's. The selection travels as the client wrote it (nested arguments and the
 * variables they use included); the delegated field's own arguments, with the same values.
 */

/** The indexer's tables, as the unified schema names their types (columns keep Hasura's names). */
const TABLE_TYPES: Record<string, string> = {
  block: "Block",
  block_transaction: "BlockTransaction",
};
const INDEXER_TYPES: Record<string, string> = Object.fromEntries(
  Object.entries(TABLE_TYPES).map(([table, unified]) => [unified, table]),
);

/** The indexer type a unified type mirrors (`Block` → `block`), if it mirrors one. */
export function indexerTypeOf(unifiedTypeName: string): string | undefined {
  return INDEXER_TYPES[unifiedTypeName];
}

/**
 * Join fields: unified fields on a mirrored type that are resolved by the gateway, not the indexer,
 * from a column of the row — `BlockTransaction.transaction` reads `hash`. The column is fetched
 * under its own alias whatever the client selected, so the join works when the client did not ask
 * for the column, or aliased something else to its name.
 */
const JOINS: Record<string, Record<string, string>> = {
  BlockTransaction: { transaction: "hash" },
};

const JOIN_KEY_PREFIX = "_join_";

/** The alias a join's key column is fetched under. */
export const joinKey = (column: string) => `${JOIN_KEY_PREFIX}${column}`;

/** Aliases the gateway keeps for join keys on mirrored types; a client's would collide with them. */
export const isReservedAlias = (alias: string) => alias.startsWith(JOIN_KEY_PREFIX);

/** The names of every join field, whatever type declares it. */
const JOIN_FIELDS = new Set(Object.values(JOINS).flatMap((joins) => Object.keys(joins)));

/**
 * Whether any field of the document is named like a join field. Most delegated selections
 * (a list of blocks and their columns) select none, and for them this scan spares the typed walk
 * below, which cost more than the rest of the delegation's own transforms.
 */
function namesAJoin(document: DocumentNode): boolean {
  const inSet = (set: SelectionSetNode | undefined): boolean =>
    set?.selections.some((s) =>
      s.kind === Kind.FIELD
        ? JOIN_FIELDS.has(s.name.value) || inSet(s.selectionSet)
        : s.kind === Kind.INLINE_FRAGMENT && inSet(s.selectionSet),
    ) ?? false;
  return document.definitions.some(
    (d) =>
      (d.kind === Kind.OPERATION_DEFINITION || d.kind === Kind.FRAGMENT_DEFINITION) &&
      inSet(d.selectionSet),
  );
}

/** Adds each join's key column to every selection set of a mirrored type that selects the join. */
const joinKeys: Transform<Record<string, never>, GraphQLContext> = {
  transformRequest(request, delegationContext) {
    if (!namesAJoin(request.document)) return request;
    const typeInfo = new TypeInfo(delegationContext.transformedSchema);
    const document = visit(
      request.document,
      visitWithTypeInfo(typeInfo, {
        SelectionSet(node: SelectionSetNode) {
          const parent = typeInfo.getParentType();
          const joins = parent ? JOINS[parent.name] : undefined;
          if (!joins) return undefined;
          const keys = new Set<string>();
          for (const s of node.selections) {
            if (s.kind === Kind.FIELD && joins[s.name.value]) keys.add(joins[s.name.value]!);
          }
          if (keys.size === 0) return undefined;
          const added: FieldNode[] = [...keys].map((column) => ({
            kind: Kind.FIELD,
            alias: { kind: Kind.NAME, value: joinKey(column) },
            name: { kind: Kind.NAME, value: column },
          }));
          return { ...node, selections: [...node.selections, ...added] };
        },
      }),
    );
    return { ...request, document };
  },
};

type IndexerExecutor = NonNullable<SubschemaConfig["executor"]>;

/**
 * One indexer round trip for the delegated fields of one request (several delegations in the same
 * tick arrive merged into one document by the subschema's batching), bounded by
 * graph.queryTimeoutMs. Not validated again: the document is derived from the gateway's, which
 * Yoga validated against the unified schema (whose mirror types and inputs are the indexer's),
 * and whose delegated fields the cost estimate checked as the graph route checks a query —
 * Hasura's refusals of explicit nulls and negative limits, the graph route's limits — before
 * anything was reserved.
 */
async function executeOnIndexer(request: {
  document: DocumentNode;
  variables?: Record<string, unknown>;
  operationName?: string;
  context?: GraphQLContext;
}): Promise<ExecutionResult> {
  const ctx = request.context;
  if (!ctx) throw new Error("delegation without the request's context");
  // A planned request whose own trip failed is executed from that failure, not asked again
  // (query-plans/serve.ts): the indexer's refusal or silence answers the query this becomes too.
  const { failedTrip } = ctx.state.plan;
  ctx.state.plan.failedTrip = undefined;
  const out =
    failedTrip ??
    (await indexerTrip(ctx, {
      query: print(request.document),
      variables: request.variables ?? {},
      operationName: request.operationName,
    }));
  if (!out.ok) return { errors: [fromGatewayError(out.error)] };
  return { data: out.data as Record<string, unknown> };
}

/**
 * One query to the request's network's indexers (shared with identical ones in flight), bounded
 * by graph.queryTimeoutMs; a failure is logged with the request's id.
 */
export async function indexerTrip(
  ctx: GatewayCallContext,
  request: GraphRequest,
  /** Whether an identical trip that ended moments ago may answer (IndexerPool.query). */
  afterTrip = false,
): Promise<IndexerOutcome> {
  const pool = ctx.services.indexers.get(ctx.network);
  if (!pool) {
    return {
      ok: false,
      error: gatewayError("UPSTREAM_UNAVAILABLE", "no indexer for this network"),
    };
  }
  // Bounded by graph.queryTimeoutMs from when the trip starts (a joiner waits under the first
  // caller's). Read with JSON.parse: the mirror types' numbers are Int columns, doubles either way
  // (what toPlainJson made of the lossless parse, at several times the cost).
  const out = await pool.query(
    request,
    ctx.services.config.graph.queryTimeoutMs,
    JSON.parse,
    afterTrip,
  );
  if (!out.ok) {
    ctx.services.log.warn(
      { requestId: ctx.requestId, detail: out.error.detail },
      out.error.message,
    );
  }
  return out;
}

/**
 * The subschema delegation targets. `batch`: the delegations of one request that fall in the same
 * tick (the root fields, every block lookup of a list of transactions) are merged into one query.
 */
export const indexerSubschema = new Subschema<unknown, unknown, unknown, GraphQLContext>({
  schema: indexerSchema(),
  // The library's Executor type is generic over every result shape; this one answers ours.
  executor: executeOnIndexer as IndexerExecutor,
  batch: true,
  transforms: [new RenameTypes((name) => TABLE_TYPES[name] ?? name), joinKeys],
});

/**
 * Resolves `info`'s field by delegating it to the indexer's root field `rootField`, with `args`
 * as its arguments (for a root field of the unified schema, its own arguments: passed through).
 * When the indexer answered, the field's site is metered at the complexity the cost plugin
 * estimated for it. A failure comes back as an Error value, located at the field.
 */
export async function delegateToIndexer(
  ctx: GraphQLContext,
  info: GraphQLResolveInfo,
  rootField: IndexerSite["rootField"],
  args: Record<string, unknown>,
): Promise<unknown> {
  const result: unknown = await delegateToSchema({
    schema: indexerSubschema,
    operation: OperationTypeNode.QUERY,
    fieldName: rootField,
    args,
    context: ctx,
    info,
    returnType: info.returnType,
    skipTypeMerging: true,
  });
  // An answer over server.responseBytesMax is charged as answered: the indexer did the work.
  if (!(result instanceof Error) || tooLarge(result)) {
    const { graph } = ctx.state.meter;
    graph.answered += 1;
    // The indexer's rows are checked against nothing.
    ctx.state.meter.verified.push("unchecked");
    graph.complexity += ctx.state.asks.graphSites.get(sitePath(info.path)) ?? 0;
  }
  return result;
}

/** An indexer answer over server.responseBytesMax, as the delegation gives it back. */
function tooLarge(error: Error): boolean {
  return (
    error instanceof GraphQLError && error.extensions.code === graphqlCodeOf("RESPONSE_TOO_LARGE")
  );
}

/** The indexer's field behind a field of a mirrored type (`Block.height` → `block.height`), if any. */
export function indexerColumn(
  unifiedTypeName: string,
  fieldName: string,
): GraphQLField<unknown, unknown> | undefined {
  const table = indexerTypeOf(unifiedTypeName);
  const type = table ? indexerSchema().getType(table) : undefined;
  return isObjectType(type) ? type.getFields()[fieldName] : undefined;
}

/** The indexer's root field a delegation site becomes. */
export function indexerRootField(
  rootField: IndexerSite["rootField"],
): GraphQLField<unknown, unknown> {
  const field = indexerSchema().getQueryType()?.getFields()[rootField];
  if (!field) throw new Error(`the indexer schema has no root field ${rootField}`);
  return field;
}
