import { GraphQLError } from "graphql";
import { CloseCode, type Context, makeServer } from "graphql-ws";
import type { WebSocket } from "ws";
import type { SocketSession } from "../../billing/metering/socket-session.ts";
import type { GraphQLContext } from "./context.ts";
import { codedError, fromGatewayError } from "./errors.ts";
import type { GatewayCallContext, GatewayServices } from "./services.ts";
import type { createGatewayYoga } from "./yoga.ts";

/** What the socket needs of the route: its Yoga and the way it makes an operation's context. */
export interface SocketDeps {
  yoga: ReturnType<typeof createGatewayYoga>;
  contextFor(ctx: GatewayCallContext): GraphQLContext;
}

/**
 * The unified API over WebSocket, in the graphql-ws protocol (graphql-transport-ws), as
 * graphql-yoga recommends pairing them: each operation is run by the same envelop as an HTTP
 * request (our plugins: document cache, limits, cost), in a context of its own (its own meter and
 * loaders, its own audit record), once the token is found still valid and the plan admits it. A
 * query or mutation is metered as over HTTP; a subscription's events are each charged as they are
 * delivered (src/routes/gateway/types/subscriptions.ts). Returns how a drain ends the session: see
 * `ending` below.
 */
export function serveGraphQLOverSocket(
  socket: WebSocket,
  session: SocketSession<GatewayServices>,
  { yoga, contextFor }: SocketDeps,
): () => void {
  let operations = 0;
  /** The protocol's context, holding the operations under way. */
  let protocol: Context | null = null;
  const ending = endingAfterWork(socket, () => protocol);
  const server = makeServer({
    // Every message must be answered by the operation it belongs to; nothing runs outside one.
    onSubscribe: async (ctx, id, payload) => {
      protocol = ctx;
      const owner = await session.stillValid();
      if (!owner) {
        // A token revoked since the upgrade: the session ends (1008 after the error).
        setImmediate(() => socket.close(1008, "token no longer valid"));
        return [codedError("UNAUTHENTICATED", "the token is no longer valid")];
      }
      const admission = await session.admit(owner);
      if (!admission.ok) return [fromGatewayError(admission.error)];
      admission.release?.();
      operations += 1;
      const context = contextFor({
        ...session.ctx,
        owner,
        requestId: `${session.ctx.requestId}.${operations}`,
        startedAt: Date.now(),
      });
      const { schema, execute, subscribe, parse, validate } = yoga.getEnveloped(context);
      let document: ReturnType<typeof parse>;
      try {
        document = parse(payload.query);
      } catch (err) {
        return [
          err instanceof GraphQLError ? err : codedError("GRAPHQL_PARSE_FAILED", String(err)),
        ];
      }
      const errors = validate(schema, document);
      if (errors.length > 0) return errors;
      return {
        schema,
        document,
        operationName: payload.operationName ?? null,
        variableValues: payload.variables ?? null,
        contextValue: context,
        rootValue: { execute, subscribe, id },
      };
    },
    execute: (args) =>
      (args.rootValue as { execute: typeof import("graphql").execute }).execute(args),
    subscribe: (args) =>
      (args.rootValue as { subscribe: typeof import("graphql").subscribe }).subscribe(args),
  });
  const closed = server.opened(
    {
      protocol: socket.protocol,
      send: (data) =>
        new Promise<void>((resolve, reject) => {
          socket.send(data, (err) => (err ? reject(err) : resolve()));
        }),
      close: (code, reason) => socket.close(code, reason),
      onMessage: (cb) => {
        socket.on("message", (data) => {
          // Each message's work counts in flight: a drain waits for what is running.
          ending
            .run(() => session.inFlight(() => cb(String(data))))
            .catch((err: unknown) => {
              socket.close(CloseCode.InternalServerError, err instanceof Error ? err.message : "");
            });
        });
      },
    },
    { socket },
  );
  socket.once("close", (code, reason) => void closed(code, String(reason)));
  return ending.shutdown;
}

/**
 * A drain's end of a session: its subscriptions complete (no more events, nor charges), the
 * operations under way are answered, then the socket closes (1001). A message after that is
 * not read: it came after the drain began.
 */
function endingAfterWork(socket: WebSocket, protocol: () => Context | null) {
  let running = 0;
  let ending = false;
  const close = () => socket.close(1001, "server shutting down");
  return {
    async run(work: () => Promise<void>): Promise<void> {
      if (ending) return;
      running++;
      try {
        await work();
      } finally {
        running--;
        if (ending && running === 0) close();
      }
    },
    shutdown(): void {
      ending = true;
      // A subscription's message is under way for as long as it lasts: it is ended here.
      for (const operation of Object.values(protocol()?.subscriptions ?? {})) {
        const stream = operation as Partial<AsyncGenerator<unknown>> | null;
        if (typeof stream?.return === "function") void stream.return(undefined);
      }
      if (running === 0) close();
    },
  };
}
