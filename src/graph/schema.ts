import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { buildSchema, type GraphQLSchema } from "graphql";

const SDL_PATH = fileURLToPath(new URL("../../schema/indexer.graphql", import.meta.url));

let cached: GraphQLSchema | undefined;

/**
 * The indexer's schema, built once per process from schema/indexer.graphql. devnet's indexer
 * executes against it and the gateway validates against it, so the two cannot drift apart.
 */
export function indexerSchema(): GraphQLSchema {
  cached ??= buildSchema(readFileSync(SDL_PATH, "utf8"));
  return cached;
}
