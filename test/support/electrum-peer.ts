import { EventEmitter } from "node:events";
import { createServer, type Socket } from "node:net";
import { toHex } from "../../src/bitcoin/index.ts";
import { loadDevnetChain } from "../../src/devnet/chain.ts";

export interface ScriptedPeer {
  url: string;
  /** Methods received, in order. */
  methods: string[];
  /** Emits "request" (method) for each request received. */
  events: EventEmitter;
  close(): Promise<void>;
}

/**
 * An Electrum server whose answers a test writes: it identifies and reports devnet's tip like a
 * real server, then hands every other request to `answer`, which returns the raw line to send, or
 * null to stay silent. For the failures no honest server produces: silence, oversized lines,
 * garbage, someone else's transaction.
 */
export async function startScriptedElectrum(
  answer: (method: string, params: unknown[], id: unknown) => string | null,
): Promise<ScriptedPeer> {
  const tip = loadDevnetChain().tip;
  const methods: string[] = [];
  const events = new EventEmitter();
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    let buffer = "";
    socket.on("data", (chunk: Buffer) => {
      buffer += chunk.toString("utf8");
      for (let end = buffer.indexOf("\n"); end >= 0; end = buffer.indexOf("\n")) {
        const { id, method, params } = JSON.parse(buffer.slice(0, end)) as {
          id: unknown;
          method: string;
          params: unknown[];
        };
        buffer = buffer.slice(end + 1);
        methods.push(method);
        events.emit("request", method);
        const reply = (result: unknown) =>
          socket.write(`${JSON.stringify({ jsonrpc: "2.0", result, id })}\n`);
        if (method === "server.version") reply(["scripted", "1.4"]);
        else if (method === "blockchain.headers.subscribe") {
          reply({ hex: toHex(tip.block.headerBytes), height: tip.height });
        } else if (method === "server.ping") reply(null);
        else {
          const line = answer(method, params, id);
          if (line !== null) socket.write(`${line}\n`);
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `tcp://127.0.0.1:${port}`,
    methods,
    events,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
