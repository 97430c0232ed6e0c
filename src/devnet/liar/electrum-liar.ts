import type { AddressInfo } from "node:net";
import { connect, createServer, type Server, type Socket } from "node:net";
import { toHex } from "../../bitcoin/hex.ts";
import {
  isJsonObject,
  type Json,
  jsonInteger,
  jsonNumber,
  parseJson,
  stringifyJson,
} from "../../protocol/json/json.ts";
import type { LyingChain } from "./lying-chain.ts";
import { type LiarOptions, names } from "./options.ts";
import { lieAboutTx, servedTip } from "./tamper.ts";

type Obj = { [key: string]: Json };
type Asked = { method: string; params: Json[] };

/** Requests remembered per connection until answered (their answers are matched by id). */
const PENDING_MAX = 10_000;

/**
 * An Electrum server in front of devnet's, over TCP lines: each client connection gets its own
 * connection to the real server; requests go on (those of the stalled method are dropped, never
 * answered) and answers and header notifications come back with the liar's lies in them.
 */
export async function startElectrumLiar(
  host: string,
  port: number,
  chain: LyingChain,
  options: () => LiarOptions,
): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(port, host);
    sockets.add(client).add(upstream);
    const pending = new Map<string, Asked>();
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("error", end).on("close", end);
    upstream.on("error", end).on("close", end);
    lines(client, (line) => {
      const out = asked(line, pending, options());
      if (out !== null) upstream.write(`${out}\n`);
    });
    lines(upstream, (line) => client.write(`${told(line, pending, chain, options())}\n`));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port: own } = server.address() as AddressInfo;
  return {
    url: `tcp://127.0.0.1:${own}`,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

function lines(socket: Socket, fn: (line: string) => void): void {
  let buffered = "";
  socket.setEncoding("utf8");
  socket.on("data", (chunk: string) => {
    buffered += chunk;
    let at = buffered.indexOf("\n");
    while (at >= 0) {
      const line = buffered.slice(0, at);
      buffered = buffered.slice(at + 1);
      if (line.trim() !== "") fn(line);
      at = buffered.indexOf("\n");
    }
  });
}

/** A client's line as it goes on: requests noted by id, the stalled method's dropped (null: nothing left). */
function asked(line: string, pending: Map<string, Asked>, opts: LiarOptions): string | null {
  let parsed: Json;
  try {
    parsed = parseJson(line);
  } catch {
    return line;
  }
  const all: Json[] = Array.isArray(parsed) ? parsed : [parsed];
  const items = all.filter((r) => {
    if (!isJsonObject(r) || typeof r.method !== "string") return true;
    if (r.method === opts.stall) return false;
    if (r.id !== undefined && pending.size < PENDING_MAX) {
      pending.set(stringifyJson(r.id), {
        method: r.method,
        params: Array.isArray(r.params) ? r.params : [],
      });
    }
    return true;
  });
  if (items.length === 0) return null;
  return Array.isArray(parsed) ? stringifyJson(items) : line;
}

/** A server's line as the client gets it: answers and notifications with the lies in them. */
function told(
  line: string,
  pending: Map<string, Asked>,
  chain: LyingChain,
  opts: LiarOptions,
): string {
  let parsed: Json;
  try {
    parsed = parseJson(line);
  } catch {
    return line;
  }
  const items = Array.isArray(parsed) ? parsed : [parsed];
  for (const item of items) {
    if (!isJsonObject(item)) continue;
    if (item.method === "blockchain.headers.subscribe" && Array.isArray(item.params)) {
      item.params = [servedTip(chain)];
      continue;
    }
    const key = item.id === undefined ? undefined : stringifyJson(item.id);
    const call = key === undefined ? undefined : pending.get(key);
    if (!call || key === undefined) continue;
    pending.delete(key);
    if ("result" in item) lie(item, call, chain, opts);
  }
  return stringifyJson(parsed);
}

/** One answer's lies, by the method it answers. */
function lie(answer: Obj, call: Asked, chain: LyingChain, opts: LiarOptions): void {
  const [first, second] = call.params;
  switch (call.method) {
    case "blockchain.headers.subscribe":
      answer.result = servedTip(chain);
      return;
    case "blockchain.block.header": {
      if (second !== undefined && jsonInteger(second) !== 0) return;
      const served = chain.at(jsonInteger(first) ?? -1);
      if (served) answer.result = toHex(served.bytes);
      else {
        delete answer.result;
        answer.error = { code: 1, message: `height ${jsonInteger(first)} out of range` };
      }
      return;
    }
    case "blockchain.block.headers":
      answer.result = headersAnswer(
        answer.result ?? null,
        jsonInteger(first) ?? 0,
        jsonInteger(second) ?? 0,
        chain,
      );
      return;
    case "blockchain.transaction.get":
      answer.result = lieAboutTx(
        answer.result ?? null,
        typeof first === "string" ? first : "",
        opts,
        chain,
      );
      return;
    case "blockchain.transaction.get_merkle": {
      const result = answer.result;
      const height = isJsonObject(result) ? jsonInteger(result.block_height) : undefined;
      if (
        isJsonObject(result) &&
        height !== undefined &&
        typeof first === "string" &&
        names(opts.wrongBlock, first)
      ) {
        answer.result = { ...result, block_height: jsonNumber(height - 1) };
      }
      return;
    }
  }
}

/** blockchain.block.headers' answer over the served chain, in the form the server chose (hex or list). */
function headersAnswer(result: Json, start: number, count: number, chain: LyingChain): Json {
  if (!isJsonObject(result)) return result;
  const parts: string[] = [];
  for (let h = start; h < start + count && h <= chain.tipHeight(); h++) {
    const served = chain.at(h);
    if (!served) break;
    parts.push(toHex(served.bytes));
  }
  const out: Obj = { ...result, count: jsonNumber(parts.length) };
  if (Array.isArray(result.headers)) out.headers = parts;
  else out.hex = parts.join("");
  return out;
}
