import type { DocumentNode } from "graphql";
import { gatewayError } from "../errors/codes.ts";
import { hasuraErrorObject } from "../errors/render.ts";
import { documentNesting, variablesNesting } from "../graphql/nesting.ts";
import { selectionNesting } from "../graphql/spread-nesting.ts";
import type { HasuraError } from "./hasura-error.ts";
import type { GraphRequest } from "./request.ts";

/**
 * The request's document or variables nested past the bounds of src/protocol/graphql/nesting.ts, refused
 * before the document is parsed (graphql-js's parser recurses on each level, as do the checks and
 * walks after it). Hasura has no such bound; the gateway's reads as a depth limit, like depthMax.
 */
export function checkInputNesting(request: GraphRequest): HasuraError | null {
  const problem = documentNesting(request.query);
  if (problem) return refusal(problem.message, "$.query");
  const deep = variablesNesting(request.variables);
  return deep ? refusal(deep.problem.message, `$.variableValues.${deep.name}`) : null;
}

/** The parsed document's selections nested past the bound with fragments spread in. */
export function checkSpreadNesting(document: DocumentNode): HasuraError | null {
  const problem = selectionNesting(document);
  return problem ? refusal(problem.message, "$.query") : null;
}

function refusal(message: string, path: string): HasuraError {
  return hasuraErrorObject(gatewayError("LIMIT_EXCEEDED", message), {
    path,
    variant: "depth-limit-exceeded",
  });
}
