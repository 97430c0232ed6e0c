import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { execute, type GraphQLSchema } from "graphql";
import { BodyTooLarge, readBody } from "../../http/body.ts";
import { checkGraphQuery } from "../../protocol/hasura/check.ts";
import { type HasuraError, hasuraError } from "../../protocol/hasura/hasura-error.ts";
import { parseGraphRequest } from "../../protocol/hasura/request.ts";
import { indexerSchema } from "../../protocol/hasura/schema.ts";
import type { DevnetChain } from "../chain.ts";
import { Gate } from "../gate.ts";
import { listenDevnet } from "../listen.ts";
import type { SelectArgs } from "./bool-exp.ts";
import { IndexerTables } from "./tables.ts";

/** What devnet's indexer counts, so tests can tell whether the gateway forwarded anything. */
export interface IndexerStats {
  httpRequests: number;
  /** Queries executed (checked and answered with data). */
  queries: number;
  /** Requests refused: bad secret, unreadable body, invalid query. */
  rejected: number;
}

export interface DevnetIndexerServer {
  server: Server;
  /** The GraphQL endpoint, Hasura's `/v1/graphql`. */
  url: string;
  secret: string;
  stats: IndexerStats;
  /**
   * Holds every query until the returned function is called: a test's way of making the
   * indexer slow (timeouts) without sleeping.
   */
  hold(): () => void;
  close(): Promise<void>;
}

const BODY_BYTES_MAX = 1024 * 1024;

/**
 * A Hasura-style indexer over devnet's chain: GraphQL over HTTP at POST /v1/graphql, admin
 * secret in `x-hasura-admin-secret`, Hasura's semantics and error shapes (HTTP 200, `errors`,
 * no `data`). Queries are checked as Hasura checks them (src/graph/check.ts) and executed by
 * graphql-js over in-memory tables.
 */
export async function startDevnetIndexer(opts: {
  chain: DevnetChain;
  secret: string;
  host?: string;
  port?: number;
}): Promise<DevnetIndexerServer> {
  const schema = indexerSchema();
  const tables = chainTables(opts.chain);
  const rootValue = {
    block: (args: SelectArgs) => tables.current().selectBlocks(args),
    block_by_pk: (args: { hash: string }) => tables.current().blockByPk(args.hash),
  };
  const stats: IndexerStats = { httpRequests: 0, queries: 0, rejected: 0 };
  const expected = Buffer.from(opts.secret);
  const gate = new Gate();

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    stats.httpRequests += 1;
    if (new URL(req.url ?? "/", "http://indexer").pathname !== "/v1/graphql") {
      return reply(res, 404, { path: "$", error: "resource does not exist", code: "not-found" });
    }
    if (req.method !== "POST") {
      return reply(res, 405, {
        path: "$",
        error: "method not allowed",
        code: "method-not-allowed",
      });
    }
    const given = Buffer.from(String(req.headers["x-hasura-admin-secret"] ?? ""));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      stats.rejected += 1;
      return errors(
        res,
        hasuraError("invalid x-hasura-admin-secret/x-hasura-access-key", "$", "access-denied"),
      );
    }
    let body: string;
    try {
      body = await readBody(req, BODY_BYTES_MAX);
    } catch (err) {
      if (!(err instanceof BodyTooLarge)) throw err;
      stats.rejected += 1;
      return reply(res, 413, {
        path: "$",
        error: "request body too large",
        code: "payload-too-large",
      });
    }
    await gate.passed();
    const answer = await answerQuery(schema, rootValue, body);
    if ("error" in answer) {
      stats.rejected += 1;
      return errors(res, answer.error);
    }
    stats.queries += 1;
    return reply(res, 200, { data: answer.data });
  }

  const { server, port, close } = await listenDevnet(serve, {
    host: opts.host,
    port: opts.port,
    keepAliveTimeoutMs: 30_000,
  });
  const stopFollowing = tables.follow();
  return {
    server,
    url: `http://127.0.0.1:${port}/v1/graphql`,
    secret: opts.secret,
    stats,
    hold: () => gate.hold(),
    close() {
      stopFollowing();
      return close();
    },
  };
}

/**
 * The tables over the chain, rebuilt at the first query after the tip moved (blocks produced, a
 * reorganisation) once `follow` is called, as a real indexer follows its node: what devnet's Core
 * mined is then queryable here too. `follow` returns what stops it.
 */
function chainTables(chain: DevnetChain) {
  let tables: IndexerTables | null = null;
  return {
    current(): IndexerTables {
      tables ??= new IndexerTables(chain);
      return tables;
    },
    follow: () =>
      chain.onTip(() => {
        tables = null;
      }),
  };
}

/** A query checked as Hasura checks it, then executed over the tables; or why not. */
async function answerQuery(
  schema: GraphQLSchema,
  rootValue: object,
  body: string,
): Promise<{ data: unknown } | { error: HasuraError }> {
  const parsed = parseGraphRequest(body);
  if (!parsed.ok) return { error: parsed.error };
  const checked = checkGraphQuery(schema, parsed.request);
  if (!checked.ok) return { error: checked.error };
  const { document, operation } = checked.query;
  const result = await execute({
    schema,
    document,
    rootValue,
    variableValues: parsed.request.variables,
    ...(operation.name ? { operationName: operation.name.value } : {}),
  });
  if (result.errors?.length) {
    return { error: hasuraError(result.errors[0]!.message, "$", "unexpected") };
  }
  return { data: result.data };
}

function errors(res: ServerResponse, error: HasuraError): void {
  reply(res, 200, { errors: [error] });
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json; charset=utf-8" });
  res.end(text);
}
