import { isAsyncIterable, mapAsyncIterator } from "@graphql-tools/utils";
import {
  createSourceEventStream,
  type ExecutionArgs,
  type ExecutionResult,
  execute,
  getOperationAST,
  Kind,
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
 */
export function sharedEventsPlugin(shared: ReadonlySet<string>): Plugin {
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
    onSubscribe({ args, subscribeFn, setSubscribeFn }) {
      if (!sharedRootField(args, shared)) return;
      const key = keyOf(args);
      const executed = (payload: unknown, subscription: ExecutionArgs) => {
        if (typeof payload !== "object" || payload === null) {
          return execute({ ...subscription, rootValue: payload });
        }
        let byKey = results.get(payload);
        if (!byKey) {
          byKey = new Map();
          results.set(payload, byKey);
        }
        let result = byKey.get(key);
        if (result === undefined) {
          result = execute({ ...subscription, rootValue: payload });
          byKey.set(key, result);
        }
        return result;
      };
      setSubscribeFn(async (subscription) => {
        const source = await createSourceEventStream(subscription);
        // Refused before any event (variables, the field's own refusal): Yoga's subscribe says so
        // in its own words, as it did.
        if (!isAsyncIterable(source)) return subscribeFn(subscription);
        return mapAsyncIterator(source, (payload) => executed(payload, subscription));
      });
    },
  };
}

/** Whether the subscription selects one root field of `shared`, plainly (no fragment, directive). */
function sharedRootField(args: ExecutionArgs, shared: ReadonlySet<string>): boolean {
  const operation = getOperationAST(args.document, args.operationName);
  if (operation?.operation !== "subscription") return false;
  const selections = operation.selectionSet.selections;
  const only = selections[0];
  return (
    selections.length === 1 &&
    only?.kind === Kind.FIELD &&
    !only.directives?.length &&
    shared.has(only.name.value)
  );
}
