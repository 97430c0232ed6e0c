import { isAsyncIterable, mapAsyncIterator } from "@graphql-tools/utils";
import {
  createSourceEventStream,
  type ExecutionArgs,
  type ExecutionResult,
  execute,
  GraphQLError,
  getOperationAST,
  Kind,
  type OperationDefinitionNode,
} from "graphql";
import type { Plugin } from "graphql-yoga";

/**
 * One execution of a subscription's selection per event for all its subscribers with the same
 * document, operation and variables, where the event is one object for all of them. graphql-js
 * maps every event through `execute` once per subscriber: for a block announced to a thousand
 * subscribers, a thousand executions of the same selection over the same object, giving the same
 * result. Taken over only for the root fields named in `shared` (an event one object for every
 * subscriber of the network, its type's fields reading nothing but the event): their events are
 * executed once, and each subscriber gets the same result object (plugins/sse-events.ts then
 * serialises it once). A delivery made for one subscriber alone (its final error) is its own
 * object, so its execution is its own. Everything else is Yoga's subscribe as before.
 *
 * Such a subscription's stream is the plugin's alone: the plugins after it (Yoga's error masking
 * among them) are not asked about it. Each would wrap every subscriber's stream in a layer of its
 * own, an iterator and a promise per event per subscriber, for what one pass over the shared
 * result does: `mask` (Yoga's own masking of an error, as configured) is applied here to each
 * result's errors once, and to an error the stream fails with, located as Yoga's executor
 * locates it.
 */
export function sharedEventsPlugin(
  shared: ReadonlySet<string>,
  mask: (error: unknown) => Error,
): Plugin {
  // Each event's results by what the subscribers executed over it; gone with the event.
  const results = new WeakMap<object, Map<string, ExecutionResult | Promise<ExecutionResult>>>();
  const names = new WeakMap<object, string>();
  let named = 0;
  const nameOf = (o: object): string => {
    let name = names.get(o);
    if (name === undefined) {
      named += 1;
      name = `#${named}`;
      names.set(o, name);
    }
    return name;
  };
  /**
   * What makes two subscriptions' executions of one event the same: the schema, the document (its
   * text, or the parsed document itself when it has none), the operation, the variables.
   */
  const keyOf = (args: ExecutionArgs): string => {
    const text = args.document.loc?.source.body ?? nameOf(args.document);
    const variables = JSON.stringify(args.variableValues ?? null);
    return `${nameOf(args.schema)}\n${args.operationName ?? ""}\n${variables}\n${text}`;
  };
  return {
    onSubscribe({ args, setResultAndStopExecution }) {
      const operation = sharedOperation(args, shared);
      if (!operation) return;
      const key = keyOf(args);
      const masked = (result: ExecutionResult): ExecutionResult =>
        result.errors
          ? { ...result, errors: result.errors.map((e) => mask(e) as GraphQLError) }
          : result;
      const executedOnce = (subscription: ExecutionArgs, payload: unknown) => {
        const result = execute({ ...subscription, rootValue: payload });
        return result instanceof Promise ? result.then(masked) : masked(result);
      };
      const executed = (payload: unknown, subscription: ExecutionArgs) => {
        if (typeof payload !== "object" || payload === null) {
          return executedOnce(subscription, payload);
        }
        let byKey = results.get(payload);
        if (!byKey) {
          byKey = new Map();
          results.set(payload, byKey);
        }
        let result = byKey.get(key);
        if (result === undefined) {
          result = executedOnce(subscription, payload);
          byKey.set(key, result);
        }
        return result;
      };
      // A stream that fails: its error located at the operation, as Yoga's executor does, then
      // masked.
      const located = (error: unknown) =>
        new GraphQLError(error instanceof Error ? error.message : String(error), {
          ...(error instanceof Error ? { originalError: error } : {}),
          nodes: [operation],
        });
      const failed = (error: unknown): never => {
        throw mask(
          error instanceof AggregateError
            ? new AggregateError(error.errors.map(located), error.message)
            : located(error),
        );
      };
      return Promise.resolve(createSourceEventStream(args)).then((source) => {
        // Refused before any event (variables, the field's own refusal): the rest of the chain,
        // Yoga's subscribe and its masking, says so in its own words, as it did.
        if (!isAsyncIterable(source)) return;
        setResultAndStopExecution(
          mapAsyncIterator(source, (payload) => executed(payload, args), failed),
        );
      });
    },
  };
}

/**
 * The subscription's operation when it selects one root field of `shared`, plainly (no fragment,
 * directive); null otherwise.
 */
function sharedOperation(
  args: ExecutionArgs,
  shared: ReadonlySet<string>,
): OperationDefinitionNode | null {
  const operation = getOperationAST(args.document, args.operationName);
  if (operation?.operation !== "subscription") return null;
  const selections = operation.selectionSet.selections;
  const only = selections[0];
  const plain =
    selections.length === 1 &&
    only?.kind === Kind.FIELD &&
    !only.directives?.length &&
    shared.has(only.name.value);
  return plain ? operation : null;
}
