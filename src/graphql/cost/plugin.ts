import { type ExecutionResult, GraphQLError } from "graphql";
import type { Plugin } from "graphql-yoga";
import { creditHeaders } from "../../http/credit-headers.ts";
import { type AuditInput, auditRecord, type Outcome } from "../../ledger/audit.ts";
import { reserve, settle } from "../../ledger/ledger.ts";
import { graphPrice, priceOf } from "../../pricing/prices.ts";
import type { GraphQLContext } from "../context.ts";
import { estimateCost } from "./estimate.ts";

export function graphqlAudit(
  ctx: GraphQLContext,
  outcome: Outcome,
  fields: {
    errorCode?: string | null;
    httpStatus: number;
    estimatedCc: number;
    chargedCc: number;
    complexity?: number | null;
  },
): AuditInput {
  return auditRecord(ctx, { method: "graphql", outcome, ...fields });
}

/**
 * Prices a request before it runs and settles it after: estimate from the document, reserve the
 * estimate (HTTP 429 before any body when the balance is short — nothing executes), execute,
 * then charge the upstream calls actually answered, write the one audit record, and report it all
 * in `extensions.cost`. A request that costs nothing reserves nothing and is never blocked.
 */
export function costPlugin(): Plugin<GraphQLContext> {
  return {
    async onExecute({ args, setResultAndStopExecution }) {
      const ctx = args.contextValue;
      const { app } = ctx;
      const estimate = estimateCost(
        args.schema,
        args.document,
        args.operationName,
        (args.variableValues ?? {}) as Record<string, unknown>,
        {
          price: (method) => priceOf(app.config, method, ctx.network) ?? 0,
          listItemsMax: app.config.graphql.listItemsMax,
          graph: {
            limits: app.config.graph,
            price: (complexity) => graphPrice(app.config, ctx.network, complexity),
          },
        },
      );
      if (estimate instanceof GraphQLError) {
        await settle(app.db, ctx.owner.accountId, null, [
          graphqlAudit(ctx, "rejected", {
            errorCode: String(estimate.extensions.code),
            httpStatus: 200,
            estimatedCc: 0,
            chargedCc: 0,
          }),
        ]);
        ctx.state.audited = true;
        setResultAndStopExecution({ errors: [estimate] });
        return;
      }
      ctx.state.wantsPrevouts = estimate.wantsPrevouts;
      for (const site of estimate.graph?.sites ?? []) {
        ctx.state.graphSites.set(site.path, site.complexity);
      }
      for (const item of estimate.items) {
        ctx.state.joinBudget.set(
          item.path,
          (ctx.state.joinBudget.get(item.path) ?? 0) + item.count,
        );
      }
      const estimatedComplexity = estimate.graph?.complexity ?? null;
      if (ctx.dryRun) {
        const { rows } = await app.db.query<{ available: number }>(
          "SELECT balance - held AS available FROM accounts WHERE id = $1",
          [ctx.owner.accountId],
        );
        await settle(app.db, ctx.owner.accountId, null, [
          graphqlAudit(ctx, "ok", {
            errorCode: "DRY_RUN",
            httpStatus: 200,
            estimatedCc: estimate.total,
            chargedCc: 0,
            complexity: estimatedComplexity,
          }),
        ]);
        ctx.state.audited = true;
        setResultAndStopExecution({
          data: null,
          extensions: {
            cost: {
              dryRun: true,
              estimated: estimate.total,
              balance: rows[0]?.available ?? 0,
              // Per-call items, then one line per indexer site; the indexer's share is priced once.
              breakdown: [
                ...estimate.items,
                ...(estimate.graph?.sites ?? []).map((site) => ({ ...site, method: "graph" })),
              ],
              ...(estimate.graph
                ? {
                    graph: {
                      complexity: estimate.graph.complexity,
                      price: estimate.graph.price,
                    },
                  }
                : {}),
            },
          },
        });
        return;
      }
      const reservation = await reserve(app.db, ctx.owner.accountId, estimate.total);
      if (!reservation.ok) {
        await settle(app.db, ctx.owner.accountId, null, [
          graphqlAudit(ctx, "insufficient_credits", {
            errorCode: "INSUFFICIENT_CREDITS",
            httpStatus: 429,
            estimatedCc: estimate.total,
            chargedCc: 0,
            complexity: estimatedComplexity,
          }),
        ]);
        ctx.state.audited = true;
        ctx.state.creditHeaders = creditHeaders(estimate.total, 0, reservation.available);
        setResultAndStopExecution({
          errors: [
            new GraphQLError(
              `Insufficient credits: ${reservation.available} CC available, ${reservation.required} CC required`,
              {
                extensions: {
                  code: "INSUFFICIENT_CREDITS",
                  balance: reservation.available,
                  required: reservation.required,
                  http: { status: 429 },
                },
              },
            ),
          ],
        });
        return;
      }
      return {
        async onExecuteDone({ result, setResult }) {
          if (!isSingleResult(result)) return;
          const { calls, graph } = ctx.state.meter;
          let actual = 0;
          for (const { count, price } of calls.values()) actual += count * price;
          // The indexer's share: one graph price over the sites that were answered, if any was.
          if (graph.answered > 0) actual += graphPrice(app.config, ctx.network, graph.complexity);
          const complexity = estimate.graph ? graph.complexity : null;
          // The estimate is an upper bound; should it ever be exceeded, the hold caps the charge.
          const charged = Math.min(actual, estimate.total);
          if (actual > estimate.total)
            app.log.error(
              { requestId: ctx.requestId, actual, estimate: estimate.total },
              "cost estimate exceeded",
            );
          const settled = await settle(app.db, ctx.owner.accountId, reservation.hold, [
            graphqlAudit(ctx, result.errors?.length ? "upstream_error" : "ok", {
              errorCode: firstCode(result),
              httpStatus: 200,
              estimatedCc: estimate.total,
              chargedCc: charged,
              complexity,
            }),
          ]);
          ctx.state.audited = true;
          ctx.state.creditHeaders = creditHeaders(estimate.total, charged, settled.available);
          setResult({
            ...result,
            extensions: {
              ...result.extensions,
              cost: {
                estimated: estimate.total,
                actual,
                charged,
                balance: settled.available,
                ...(complexity === null ? {} : { complexity }),
              },
            },
          });
        },
      };
    },
  };
}

function isSingleResult(result: unknown): result is ExecutionResult {
  return typeof result === "object" && result !== null && !(Symbol.asyncIterator in result);
}

function firstCode(result: ExecutionResult): string | null {
  const code = result.errors?.[0]?.extensions?.code;
  return typeof code === "string" ? code : null;
}
