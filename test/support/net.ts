import { connect } from "node:net";

/** The error code of a fresh TCP connection to 127.0.0.1:`port` (ECONNREFUSED…), or "connected". */
export function connectOutcome(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve("connected");
    });
    socket.once("error", (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
}
