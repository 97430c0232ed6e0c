import type { Server, ServerResponse } from "node:http";
import { within } from "../util/cached-check.ts";

/**
 * The requests a server is handling, so that shutdown can wait for them. A request counts until
 * both its handler has returned (its charge and audit record are settled) and its response has
 * ended (the bytes are handed to the socket), whichever comes last.
 */
export class InFlight {
  private readonly open = new Set<ServerResponse>();
  private draining = false;
  private onIdle: (() => void) | null = null;

  constructor(private readonly server: Server) {}

  get size(): number {
    return this.open.size;
  }

  /** Runs `handle` for the request `res` answers, counting it in flight until both are done. */
  track(res: ServerResponse, handle: () => Promise<void>): void {
    this.open.add(res);
    // A request that arrives during the drain (on a connection that was mid-request when it
    // began) is still answered, but its connection closes after it. Set before the handler runs:
    // some answer synchronously.
    if (this.draining) res.setHeader("connection", "close");
    const handled = handle();
    const ended = new Promise<void>((resolve) => res.once("close", resolve));
    void Promise.all([handled, ended]).then(() => {
      this.open.delete(res);
      // Its connection may be kept alive (the response began before the drain): close it now.
      if (this.draining) setImmediate(() => this.server.closeIdleConnections());
      if (this.open.size === 0) this.onIdle?.();
    });
  }

  /** From now on every answer not yet begun tells the client to close its connection. */
  startDraining(): void {
    this.draining = true;
    for (const res of this.open) {
      if (!res.headersSent) res.setHeader("connection", "close");
    }
  }

  /** Resolves when no request is in flight. */
  idle(): Promise<void> {
    if (this.open.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.onIdle = resolve;
    });
  }
}

export interface DrainOutcome {
  /** Requests still in flight when the time ran out, whose connections were closed under them. */
  cut: number;
  ms: number;
}

/**
 * Stops accepting connections at once (the listening socket closes before this returns its
 * promise), closes idle keep-alive connections, lets requests in flight finish for up to
 * `timeoutMs`, then closes every connection left.
 */
export function drain(
  server: Server,
  requests: InFlight,
  timeoutMs: number,
): Promise<DrainOutcome> {
  const started = Date.now();
  requests.startDraining();
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  return (async () => {
    const answered = await within(
      requests.idle().then(() => true),
      timeoutMs,
      false,
    );
    const cut = answered ? 0 : requests.size;
    if (answered) {
      // What is left is idle, or a connection that never completed a request (a slow client
      // still sending headers): give those the rest of the time, then close them too.
      server.closeIdleConnections();
      const left = timeoutMs - (Date.now() - started);
      if (
        !(await within(
          closed.then(() => true),
          left,
          false,
        ))
      )
        server.closeAllConnections();
    } else {
      server.closeAllConnections();
    }
    await closed;
    return { cut, ms: Date.now() - started };
  })();
}
