import type { Server } from "node:http";
import { ServerResponse } from "node:http";
import { Socket } from "node:net";
import { InFlightMap } from "../util/in-flight-map.ts";

/** A call the drain gave up on before it was charged: it is never charged, its connection closed. */
export class CallCut extends Error {
  constructor() {
    super("the gateway is shutting down: the call was cut before it was charged");
  }
}

interface Entry {
  work: number;
  ended: boolean;
  /** A charge was begun by work still running (or by a request not yet answered). */
  charged: boolean;
}

/**
 * The requests a server is handling, so that shutdown can wait for them. A request counts from
 * the moment it is routed until both its response has ended (the bytes are handed to the socket)
 * and the work run for it (`run`: authentication, the route's handler — its charge and audit
 * record settled) has finished, whichever comes last: a client that goes away does not stop the
 * work its call started, and drain waits for that work too. When the drain's time runs out
 * (`cut`), what has not begun its charge is cut and never charged; what has is let finish.
 */
export class InFlight {
  /** Requests by their response; a socket session's work (the Electrum TLS listener) by its socket. */
  private readonly open = new InFlightMap<object, Entry>();
  private draining = false;
  /** Once the drain has read what had arrived: a connection left idle is closed. */
  private closingIdle = false;
  /** Once the drain's time has run out: nothing is charged any more. */
  private cutting = false;
  private onIdle: (() => void) | null = null;

  constructor(private readonly server: Server) {}

  get size(): number {
    return this.open.size;
  }

  /** Counts the request `res` answers, from now until its response has ended and its work is done. */
  track(res: ServerResponse): void {
    const entry: Entry = { work: 0, ended: false, charged: false };
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
      entry = { work: 0, ended: true, charged: false };
      this.open.set(res, entry);
    }
    entry.work++;
    try {
      return await work();
    } finally {
      entry.work--;
      // A session's message is answered within the work that charged it; a request is answered
      // once its response has ended.
      if (entry.work === 0 && (entry.ended || isSession(res))) entry.charged = false;
      this.release(res, entry);
    }
  }

  /**
   * Charges a call of the request (or session) `res` stands for: `settle` commits the charge.
   * Once the drain has cut what was left, nothing is charged any more (CallCut); a request whose
   * charge has begun is not cut, so that it gets the answer it pays for.
   */
  charge<T>(res: object, settle: () => Promise<T>): Promise<T> {
    if (this.cutting) return Promise.reject(new CallCut());
    const entry = this.open.get(res);
    if (entry) entry.charged = true;
    return settle();
  }

  private release(res: object, entry: Entry): void {
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

  /**
   * The drain's time is up: from now on nothing is charged, and each request or session that has
   * not begun a charge, nor written its whole answer, has its connection closed under it and no
   * longer counts in flight. Returns how many calls were cut: requests, and sessions at work (an
   * idle session loses nothing).
   */
  cut(): number {
    this.cutting = true;
    const left = [...this.open.keys()].filter((res) => {
      const entry = this.open.get(res)!;
      return !entry.charged && !(res instanceof ServerResponse && res.writableEnded);
    });
    let cut = 0;
    for (const res of left) {
      if (this.open.get(res)!.work > 0 || !isSession(res)) cut++;
      this.open.delete(res);
      connectionOf(res)?.destroy();
    }
    if (this.open.size === 0) this.onIdle?.();
    return cut;
  }

  /** Resolves when no request is in flight. */
  idle(): Promise<void> {
    if (this.open.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.onIdle = resolve;
    });
  }
}

/** Whether `res` stands for a socket session (a WebSocket's upgrade, a TLS connection). */
function isSession(res: object): boolean {
  return res instanceof ServerResponse ? res.req.upgrade : true;
}

/** The connection a request (its response) or a session (its socket) came on. */
function connectionOf(res: object): Socket | null {
  if (res instanceof ServerResponse) return res.socket;
  return res instanceof Socket ? res : null;
}
