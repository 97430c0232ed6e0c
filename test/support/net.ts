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

/**
 * One Electrum call straight to a server at `url` (tcp://host:port), with no deadline: its
 * answer's first line, parsed. For a test's set-up, where only the server's own time matters.
 */
export function electrumCall(url: string, method: string, params: unknown[]): Promise<unknown> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      text += chunk;
      const end = text.indexOf("\n");
      if (end < 0) return;
      socket.destroy();
      resolve(JSON.parse(text.slice(0, end)));
    });
    socket.once("error", reject);
    socket.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method, params })}\n`);
  });
}
