import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A stopgap liar for the verification tests: an HTTP proxy in front of one of devnet's servers
 * (Core's JSON-RPC or Esplora's REST) that changes one hex digit near the end of every long hex
 * string it passes on — a transaction's locktime, so it still decodes but hashes to another
 * txid. `tampered` counts the answers it changed.
 */
export interface TamperingProxy {
  url: string;
  tampered: number;
  close(): Promise<void>;
}

/** Hex runs long enough to be a transaction or a header, as JSON strings or a whole plain body. */
const LONG_HEX = /"([0-9a-f]{120,})"|^([0-9a-f]{120,})$/g;

function flip(hex: string): string {
  const at = hex.length - 3;
  const digit = hex[at] === "0" ? "1" : "0";
  return `${hex.slice(0, at)}${digit}${hex.slice(at + 1)}`;
}

export async function startTamperingProxy(target: string): Promise<TamperingProxy> {
  const base = new URL(target);
  const proxy: TamperingProxy & { server?: Server } = {
    url: "",
    tampered: 0,
    close: () => new Promise<void>((resolve) => proxy.server?.close(() => resolve())),
  };
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) {
      if (typeof v === "string" && k !== "host" && k !== "content-length") headers[k] = v;
    }
    const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
    const upstream = await fetch(new URL(req.url ?? "/", base), {
      method: req.method ?? "GET",
      headers,
      ...(body && req.method !== "GET" ? { body } : {}),
    });
    const text = await upstream.text();
    const changed = text.replace(LONG_HEX, (whole: string, quoted?: string, plain?: string) =>
      quoted ? `"${flip(quoted)}"` : flip(plain ?? whole),
    );
    if (changed !== text) proxy.tampered += 1;
    res.writeHead(upstream.status, {
      "content-type": upstream.headers.get("content-type") ?? "text/plain",
    });
    res.end(changed);
  });
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  proxy.server = server;
  const { port } = server.address() as AddressInfo;
  proxy.url = `http://127.0.0.1:${port}${base.pathname.replace(/\/+$/, "")}`;
  return proxy;
}
