import type { IncomingMessage, ServerResponse } from "node:http";
import { toHex } from "../../bitcoin/hex.ts";
import {
  isJsonObject,
  type Json,
  jsonInteger,
  jsonNumber,
  parseJson,
  stringifyJson,
} from "../../protocol/json/json.ts";
import { listenDevnet } from "../listen.ts";
import type { LyingChain, ServedHeader } from "./lying-chain.ts";
import type { LiarOptions } from "./options.ts";
import { lieAboutTx } from "./tamper.ts";

type Obj = { [key: string]: Json };
type Patch = (response: Obj) => void;

/**
 * A Bitcoin Core in front of devnet's: each request goes on to the real one (its credentials
 * pass through) and the answers come back with the liar's lies in them. A request calling the
 * stalled method is never answered.
 */
export async function startCoreLiar(
  coreUrl: string,
  chain: LyingChain,
  options: () => LiarOptions,
): Promise<{ url: string; close(): Promise<void> }> {
  const serve = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    let parsed: Json;
    try {
      parsed = parseJson(body);
    } catch {
      parsed = null;
    }
    const calls = (Array.isArray(parsed) ? parsed : [parsed]).filter(isJsonObject);
    const opts = options();
    if (opts.stall && calls.some((c) => c.method === opts.stall)) return;
    const patches = calls.map((c) => plan(c, chain, opts));
    const upstream = await fetch(coreUrl, {
      method: "POST",
      headers: {
        authorization: req.headers.authorization ?? "",
        "content-type": "application/json",
      },
      body: stringifyJson(Array.isArray(parsed) ? calls : (calls[0] ?? parsed)),
    });
    const text = await upstream.text();
    res.writeHead(upstream.status, { "content-type": "application/json" });
    res.end(upstream.ok || upstream.status === 500 ? lie(text, patches) : text);
  };
  const { port, close } = await listenDevnet(serve, { keepAliveTimeoutMs: 30_000 });
  return { url: `http://127.0.0.1:${port}/`, close };
}

/** The answer text with each call's patch applied (by position in a batch). */
function lie(text: string, patches: (Patch | null)[]): string {
  let answer: Json;
  try {
    answer = parseJson(text);
  } catch {
    return text;
  }
  const answers = Array.isArray(answer) ? answer : [answer];
  answers.forEach((a, i) => {
    const patch = patches[i];
    if (patch && isJsonObject(a)) patch(a);
  });
  return `${stringifyJson(answer)}\n`;
}

/** A result in the answer's envelope: 2.0 has one of result and error, 1.0 both. */
const answered = (r: Obj, result: Json) => {
  r.result = result;
  if (r.jsonrpc === "2.0") delete r.error;
  else r.error = null;
};
const refused = (r: Obj, code: number, message: string) => {
  if (r.jsonrpc === "2.0") delete r.result;
  else r.result = null;
  r.error = { code, message };
};

/**
 * What the liar does to one call: rewrites its request where it names a lying header (so the
 * real node finds the block it stands for) and returns how to change its answer.
 */
function plan(call: Obj, chain: LyingChain, opts: LiarOptions): Patch | null {
  const params = Array.isArray(call.params) ? call.params : [];
  switch (call.method) {
    case "getbestblockhash":
      return (r) => answered(r, chain.at(chain.tipHeight())?.hash ?? null);
    case "getblockcount":
      return (r) => answered(r, jsonNumber(chain.tipHeight()));
    case "getblockhash": {
      const served = chain.at(jsonInteger(params[0]) ?? -1);
      return (r) =>
        served ? answered(r, served.hash) : refused(r, -8, "Block height out of range");
    }
    case "getblockheader": {
      const served = typeof params[0] === "string" ? chain.byHash(params[0]) : undefined;
      if (served) call.params = [served.honestHash, ...params.slice(1)];
      const verbose = params[1] !== false;
      return (r) => {
        if (!served) return refused(r, -5, "Block not found");
        if (!verbose) return answered(r, toHex(served.bytes));
        if (isJsonObject(r.result)) answered(r, headerJson(r.result, served, chain));
      };
    }
    case "getblockchaininfo":
      return (r) => {
        if (!isJsonObject(r.result)) return;
        const tip = chain.at(chain.tipHeight());
        const height = jsonNumber(chain.tipHeight());
        answered(r, {
          ...r.result,
          blocks: height,
          headers: height,
          bestblockhash: tip?.hash ?? "",
        });
      };
    case "getrawtransaction": {
      const txid = typeof params[0] === "string" ? params[0] : "";
      return (r) => {
        if ("result" in r && r.result !== null)
          answered(r, lieAboutTx(r.result, txid, opts, chain));
      };
    }
    default:
      return null;
  }
}

/** getblockheader's verbose answer for a served header: its own fields, its place in the served chain. */
function headerJson(honest: Obj, served: ServedHeader, chain: LyingChain): Json {
  const dv = new DataView(served.bytes.buffer, served.bytes.byteOffset, 80);
  const next = chain.at(served.height + 1);
  const out: Obj = {
    ...honest,
    hash: served.hash,
    confirmations: jsonNumber(chain.tipHeight() - served.height + 1),
    time: jsonNumber(dv.getUint32(68, true)),
    nonce: jsonNumber(dv.getUint32(76, true)),
    bits: dv.getUint32(72, true).toString(16).padStart(8, "0"),
  };
  const prev = chain.at(served.height - 1);
  if (prev) out.previousblockhash = prev.hash;
  if (next) out.nextblockhash = next.hash;
  else delete out.nextblockhash;
  return out;
}
