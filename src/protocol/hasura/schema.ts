import { readFileSync } from "node:fs";
import { buildSchema, type GraphQLSchema } from "graphql";
import { projectPath } from "../../util/paths.ts";

const SDL_PATH = projectPath("schema", "indexer.graphql");

let cached: GraphQLSchema | undefined;

/**
 * The indexer's schema, built once per process from schema/indexer.graphql. devnet's indexer
 * executes against it and the gateway validates against it, so the two cannot drift apart.
 */
export function indexerSchema(): GraphQLSchema {
  cached ??= buildSchema(readFileSync(SDL_PATH, "utf8"));
  return cached;
}
