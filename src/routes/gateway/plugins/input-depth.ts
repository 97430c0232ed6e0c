import type { GraphQLError } from "graphql";
import type { Plugin } from "graphql-yoga";
import {
  documentNesting,
  type NestingProblem,
  variablesNesting,
} from "../../../protocol/graphql/nesting.ts";
import { selectionNesting } from "../../../protocol/graphql/spread-nesting.ts";
import { codedError } from "../errors.ts";

/**
 * Refuses a document or variables nested past the bounds of src/protocol/graphql/nesting.ts before anything
 * recursive sees them: the document before it is parsed (graphql-js's parser recurses on every
 * level), its fragments spread into one another before validation follows them
 * (src/protocol/graphql/spread-nesting.ts), the variables before execution coerces them, the cost estimate
 * walks them, or delegation prints them. Over HTTP, WebSocket and the dashboard alike, since each
 * goes through this envelop. Its refusals are LIMIT_EXCEEDED, uncharged, audited as any refusal
 * before execution (cost plugin).
 */
export function inputDepthPlugin(): Plugin {
  return {
    onParse({ parseFn, setParseFn }) {
      // Wraps the parser in place (graphql-armor's, which counts tokens), so a document the cache
      // holds, which passed this once, is not scanned again.
      setParseFn((source, options) => {
        const problem = documentNesting(typeof source === "string" ? source : source.body);
        if (problem) throw limitError(problem);
        const document = parseFn(source, options);
        const spread = selectionNesting(document);
        if (spread) throw limitError(spread);
        return document;
      });
    },
    onExecute({ args, setResultAndStopExecution }) {
      const deep = variablesNesting(args.variableValues);
      if (deep) setResultAndStopExecution({ errors: [requestError(deep.problem)] });
    },
    onSubscribe({ args, setResultAndStopExecution }) {
      const deep = variablesNesting(args.variableValues);
      if (deep) setResultAndStopExecution({ errors: [requestError(deep.problem)] });
    },
  };
}

/** Coded already: the error codes plugin leaves it as it is. */
function limitError(problem: NestingProblem): GraphQLError {
  return codedError("LIMIT_EXCEEDED", problem.message);
}

/**
 * The variables' refusal answered as Yoga answers a document it refused (a GraphQL-over-HTTP
 * request error): 400 to a client that accepts application/graphql-response+json, 200 to one
 * that reads application/json. Yoga reads `http` and leaves it out of the answer.
 */
function requestError(problem: NestingProblem): GraphQLError {
  return codedError("LIMIT_EXCEEDED", problem.message, { http: { spec: true, status: 400 } });
}
