import { type Server, ServerResponse } from "node:http";
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from "fastify";
import { within } from "../util/cached-check.ts";
import { InFlightMap } from "../util/in-flight-map.ts";
import { stopListening } from "./listener.ts";

/**
 * The requests a server is handling, so that shutdown can wait for them. A request counts from
 * the moment it is routed until both its response has ended (the bytes are handed to the socket)
 * and the work run for it (`run`: authentication, the route's handler — its charge and audit
 * record settled) has finished, whichever comes last: a client that goes away does not stop the
 * work its call started, and drain waits for that work too.
 */
export class InFlight {
  /** Requests by their response; a socket session's work (the Electrum TLS listener) by its socket. */
  private readonly open = new InFlightMap<object, { work: number; ended: boolean }>();
  private draining = false;
  /** Once the drain has read what had arrived: a connection left idle is closed. */
  private closingIdle = false;
  private onIdle: (() => void) | null = null;

  constructor(private readonly server: Server) {}

  get size(): number {
    return this.open.size;
  }

  /** Counts the request `res` answers, from now until its response has ended and its work is done. */
  track(res: ServerResponse): void {
    const entry = { work: 0, ended: false };
    this.open.set(res, entry);
    // A request that arrives during the drain (on a connection that was mid-request when it
    // began) is still answered, but its connection closes after it. Set before the route runs:
    // some answer synchronously.
    if (this.draining) res.setHeader("connection", "close");
    res.once("close", () => {
      entry.ended = true;
      this.release(res, entry);
    });
  }

  /**
   * Runs work of the request `res` answers; the request stays in flight until it has finished.
   * `res` may be any object standing for a session without a response (a TLS connection): its
   * work counts in flight while it runs.
   */
  async run<T>(res: object, work: () => Promise<T>): Promise<T> {
    let entry = this.open.get(res);
    if (!entry) {
      // Its response has already ended (the client went away between two phases): the work
      // still counts.
      entry = { work: 0, ended: true };
      this.open.set(res, entry);
    }
    entry.work++;
    try {
      return await work();
    } finally {
      entry.work--;
      this.release(res, entry);
    }
  }

  private release(res: object, entry: { work: number; ended: boolean }): void {
    if (!entry.ended || entry.work > 0 || this.open.get(res) !== entry) return;
    this.open.delete(res);
    // Its connection may be kept alive (the response began before the drain): close it now.
    if (this.closingIdle) setImmediate(() => this.server.closeIdleConnections());
    if (this.open.size === 0) this.onIdle?.();
  }

  /** From now on every answer not yet begun tells the client to close its connection. */
  startDraining(): void {
    this.draining = true;
    for (const res of this.open.keys()) {
      if (res instanceof ServerResponse && !res.headersSent) res.setHeader("connection", "close");
    }
  }

  /**
   * Closes the connections idle now, and from now on each one its last answer leaves idle. Not
   * before what had arrived on them is read: node counts a kept-alive connection idle until its
   * next request's first bytes are parsed, and destroying a socket with unread bytes resets it.
   */
  closeIdle(): void {
    this.closingIdle = true;
    this.server.closeIdleConnections();
  }

  /** Resolves when no request is in flight. */
  idle(): Promise<void> {
    if (this.open.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.onIdle = resolve;
    });
  }
}

/**
 * Counts every request `http` routes in `requests`, and makes every route's own work (its
 * `onRequest` hooks and its handler) part of its request's time in flight. Call before adding
 * routes.
 */
export function countInFlight(http: FastifyInstance, requests: InFlight): void {
  http.addHook("onRequest", (_request, reply, done) => {
    requests.track(reply.raw);
    done();
  });
  http.addHook("onRoute", (route) => {
    const handler = route.handler;
    route.handler = function (request, reply) {
      return requests.run(reply.raw, async () => handler.call(this, request, reply));
    };
    const hooks = route.onRequest;
    if (hooks === undefined) return;
    const wrap = (hook: onRequestHookHandler): onRequestHookHandler =>
      async function (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
        // A hook may call `done` or return a promise: either ends it.
        await requests.run(
          reply.raw,
          () =>
            new Promise<void>((resolve, reject) => {
              const result: unknown = hook.call(this, request, reply, (err) =>
                err ? reject(err) : resolve(),
              );
              if (result instanceof Promise) result.then(() => resolve(), reject);
            }),
        );
      };
    route.onRequest = Array.isArray(hooks) ? hooks.map(wrap) : wrap(hooks);
  });
}

export interface DrainOutcome {
  /**
   * Requests still in flight when the time ran out, whose connections were closed under them
   * (never charged: see app.ts).
   */
  cut: number;
  ms: number;
}

/**
 * Stops accepting connections, closes idle keep-alive connections, lets requests in flight finish
 * for up to `timeoutMs`, then closes every connection left. Every request whose bytes reached the
 * gateway before the drain began is answered, or cut and counted: `stopped` is called once the
 * listening socket is closed and those requests are counted in flight.
 */
export async function drain(
  server: Server,
  requests: InFlight,
  timeoutMs: number,
  stopped: () => void = () => {},
): Promise<DrainOutcome> {
  const started = Date.now();
  requests.startDraining();
  const { closed } = await stopListening(server);
  stopped();
  requests.closeIdle();
  const finished = async () => {
    await requests.idle();
    // What is left is idle, or a connection that never completed a request (a slow client still
    // sending headers): those get the rest of the time.
    requests.closeIdle();
    await closed;
    // A request that arrived meanwhile, its client gone, may still be at work.
    await requests.idle();
  };
  const inTime = await within(
    finished().then(() => true),
    timeoutMs - (Date.now() - started),
    false,
  );
  const cut = inTime ? 0 : requests.size;
  if (!inTime) server.closeAllConnections();
  await closed;
  return { cut, ms: Date.now() - started };
}
