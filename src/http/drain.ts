import type { Server } from "node:http";
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from "fastify";
import { within } from "../util/cached-check.ts";
import type { InFlight } from "./in-flight.ts";
import { stopListening } from "./listener.ts";

/**
 * How long requests whose charge has begun when the drain's time runs out are given to write
 * their answers: the charge's commit and the writing, no upstream.
 */
const CHARGED_GRACE_MS = 1_000;

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
   * Calls (requests, socket sessions at work) still in flight when the time ran out, whose
   * connections were closed under them: cut before their charge began, so never charged (see
   * InFlight.cut); or, rarer, whose answer was not written within the grace given a charge begun.
   */
  cut: number;
  ms: number;
}

/** What a drain does besides the HTTP server's, at its steps. */
export interface DrainSteps {
  /** Stops the other listeners (as stopListening does), alongside the HTTP server's. */
  stopListening?(): Promise<void>;
  /** Every listener is closed and what had arrived is read and counted in flight. */
  stopped?(): void;
  /** The time has run out: every connection left is being closed. */
  closeAll?(): void;
}

/**
 * Stops accepting connections, closes idle keep-alive connections, lets requests in flight finish
 * for up to `timeoutMs`, then closes every connection left. Every request whose bytes reached the
 * gateway before the drain began is answered, or cut, counted and never charged.
 */
export async function drain(
  server: Server,
  requests: InFlight,
  timeoutMs: number,
  steps: DrainSteps = {},
): Promise<DrainOutcome> {
  const started = Date.now();
  requests.startDraining();
  const [{ closed }] = await Promise.all([stopListening(server), steps.stopListening?.()]);
  steps.stopped?.();
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
  let cut = 0;
  if (!inTime) {
    cut = requests.cut();
    // Those charged finish their answers; one that cannot is cut all the same.
    await within(requests.idle(), CHARGED_GRACE_MS, null);
    cut += requests.size;
    steps.closeAll?.();
    server.closeAllConnections();
  }
  await closed;
  return { cut, ms: Date.now() - started };
}
