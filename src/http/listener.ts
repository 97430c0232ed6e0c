import type { Server } from "node:net";

/**
 * Node's listen backlog when none is given: at most this many connections can wait in the kernel
 * to be accepted.
 */
const LISTEN_BACKLOG = 511;

/**
 * Stops `server` listening without resetting a connection a client has already made: those the
 * kernel has completed but the process has not yet accepted wait in the listening socket's
 * backlog, and closing it resets them, request and all. libuv accepts one connection per poll of
 * the event loop, so this polls until one accepts nothing (or a full backlog has been taken, so
 * that a flood cannot hold it open), closes the listening socket, and polls once more, so that
 * what had arrived on the last connections accepted is read. Resolves then, with a promise of the
 * server's close (when its last connection has closed).
 */
export async function stopListening(server: Server): Promise<{ closed: Promise<void> }> {
  let accepted = true;
  const onConnection = () => {
    accepted = true;
  };
  server.on("connection", onConnection);
  for (let polls = 0; accepted && polls <= LISTEN_BACKLOG; polls++) {
    accepted = false;
    await nextPoll();
  }
  server.off("connection", onConnection);
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  await nextPoll();
  return { closed };
}

/** Resolves once the event loop has polled for I/O (accepted, read) at least once more. */
export function nextPoll(): Promise<void> {
  // An immediate queued from an immediate runs in the next turn of the loop, after its poll.
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}
