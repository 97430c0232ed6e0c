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
 * One Electrum call straight to a server at `url` (tcp://host:port), after the `server.version`
 * a session opens with, with no deadline: the call's answer, parsed. For a test's set-up, where
 * only the server's own time matters.
 */
export function electrumCall(url: string, method: string, params: unknown[]): Promise<unknown> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      text += chunk;
      for (let end = text.indexOf("\n"); end >= 0; end = text.indexOf("\n")) {
        const answer = JSON.parse(text.slice(0, end)) as { id?: unknown };
        text = text.slice(end + 1);
        if (answer.id !== 1) continue; // the version's
        socket.destroy();
        resolve(answer);
      }
    });
    socket.once("error", reject);
    const line = (id: number, m: string, p: unknown[]) =>
      `${JSON.stringify({ jsonrpc: "2.0", id, method: m, params: p })}\n`;
    socket.write(line(0, "server.version", ["blockgate-test", "1.4"]) + line(1, method, params));
  });
}
