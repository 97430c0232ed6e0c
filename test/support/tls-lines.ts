import { connect, type TLSSocket } from "node:tls";

/** A newline-delimited JSON-RPC connection over TLS, as stock Electrum wallets speak it. */
export interface TlsLines {
  send(message: unknown): void;
  /** The next line parsed; null once the connection has closed with nothing left to read. */
  next(): Promise<unknown>;
  closed: Promise<void>;
  end(): void;
}

/**
 * A raw TLS connection to 127.0.0.1:`port` with `servername` as SNI (none when null), the
 * certificate not verified (wallets pin it instead): send lines, read lines.
 */
export async function tlsLines(port: number, servername: string | null): Promise<TlsLines> {
  const socket: TLSSocket = connect({
    port,
    host: "127.0.0.1",
    rejectUnauthorized: false,
    ...(servername === null ? {} : { servername }),
  });
  const lines: string[] = [];
  const waiting: ((line: string | null) => void)[] = [];
  let buffered = "";
  const deliver = (line: string | null) => {
    const w = waiting.shift();
    if (w) w(line);
    else if (line !== null) lines.push(line);
  };
  socket.setEncoding("utf8");
  socket.on("data", (chunk: string) => {
    buffered += chunk;
    for (let at = buffered.indexOf("\n"); at >= 0; at = buffered.indexOf("\n")) {
      deliver(buffered.slice(0, at));
      buffered = buffered.slice(at + 1);
    }
  });
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  void closed.then(() => {
    while (waiting.length > 0) deliver(null);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once("secureConnect", () => resolve());
    socket.once("error", reject);
  });
  return {
    send: (message: unknown) => socket.write(`${JSON.stringify(message)}\n`),
    next: async (): Promise<unknown> => {
      const line =
        lines.length > 0
          ? lines.shift()!
          : socket.destroyed
            ? null
            : await new Promise<string | null>((r) => waiting.push(r));
      return line === null ? null : JSON.parse(line);
    },
    closed,
    end: () => socket.end(),
  };
}
