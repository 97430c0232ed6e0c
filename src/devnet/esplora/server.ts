import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Network, Prevout } from "../../bitcoin/index.ts";
import { BodyTooLarge, readBody } from "../../http/body.ts";
import {
  type EsploraRequest,
  isRefusal,
  readEsploraRequest,
} from "../../protocol/esplora/request.ts";
import { type Json, jsonNumber } from "../../protocol/json/json.ts";
import { BitcoinCoreClient } from "../../upstreams/bitcoin-core/client.ts";
import type { DevnetCoreServer } from "../bitcoin-core/http.ts";
import type { DevnetChain } from "../chain.ts";
import { scriptIndex } from "../electrum/script-index.ts";
import { Gate } from "../gate.ts";
import { listenDevnet } from "../listen.ts";
import { answerBlocks } from "./blocks.ts";
import { mempoolStats, recentTxs } from "./mempool.ts";
import { type EsploraReply, json, rustFloat, text } from "./reply.ts";
import { answerScripts } from "./scripts.ts";
import { spendIndex } from "./spends.ts";
import { answerTxs } from "./txs.ts";
import type { EsploraView } from "./view.ts";

/** What devnet's Esplora counts, so tests can tell whether the gateway forwarded anything. */
export interface EsploraStats {
  requests: number;
}

export interface DevnetEsploraServer {
  server: Server;
  /** The API's base URL, as blockstream.info's is `https://blockstream.info/api`. */
  url: string;
  stats: EsploraStats;
  /** Holds every request until the returned function is called (tests of slow upstreams). */
  hold(): () => void;
  close(): Promise<void>;
}

/** electrs' CONF_TARGETS for /fee-estimates. */
const CONF_TARGETS = [...Array.from({ length: 25 }, (_, i) => i + 1), 144, 504, 1008];
const BODY_BYTES_MAX = 4 * 1024 * 1024;

/** What devnet's Esplora asks its daemon, devnet's Core: a broadcast and fee estimates. */
type Daemon = (
  calls: { method: string; params: Json[] }[],
) => Promise<({ result: Json } | { error: { code: number; message: string } })[]>;

/** `POST /tx`: the daemon's sendrawtransaction; its refusal quoted as electrs quotes it. */
async function broadcast(daemon: Daemon, hex: string): Promise<EsploraReply> {
  const [answer] = await daemon([{ method: "sendrawtransaction", params: [hex] }]);
  if (answer && "result" in answer) return text(String(answer.result));
  const error = answer && "error" in answer ? answer.error : { code: -1, message: "no answer" };
  // serde_json's Value prints an object's keys sorted: code, then message.
  return text(`sendrawtransaction RPC error: ${JSON.stringify(error)}`, 400);
}

/** `/fee-estimates`: estimatesmartfee for each target, BTC/kvB as sat/vB; failed targets left out. */
async function feeEstimates(daemon: Daemon): Promise<EsploraReply> {
  const answers = await daemon(
    CONF_TARGETS.map((t) => ({ method: "estimatesmartfee", params: [jsonNumber(t)] })),
  );
  const entries: string[] = [];
  answers.forEach((answer, i) => {
    if (!("result" in answer)) return;
    const result = answer.result as { feerate?: Json; errors?: Json };
    if (result.errors !== undefined || result.feerate === undefined) return;
    const rate = Number(String(result.feerate));
    if (rate === -1) return;
    entries.push(`"${CONF_TARGETS[i]}":${rustFloat(rate * 100_000)}`);
  });
  return { status: 200, type: "application/json", body: `{${entries.join(",")}}` };
}

/** Every endpoint, dispatched. */
function answerer(view: EsploraView, daemon: Daemon) {
  const spends = spendIndex(view.chain);
  const scripts = scriptIndex(view.chain, view.prevouts);
  return async (r: EsploraRequest): Promise<EsploraReply> => {
    switch (r.endpoint) {
      case "esplora.tx.broadcast":
        return broadcast(daemon, (r.body ?? "").trim());
      case "esplora.fee-estimates":
        return feeEstimates(daemon);
      case "esplora.mempool":
        return mempoolStats(view);
      case "esplora.mempool.txids":
        return json([...view.chain.mempool.keys()]);
      case "esplora.mempool.recent":
        return recentTxs(view);
    }
    if (r.script) return answerScripts(view, scripts, r);
    return answerBlocks(view, r) ?? answerTxs(view, spends, r) ?? text("unreachable", 500);
  };
}

/**
 * devnet's Esplora for one network: electrs' REST API at `/api/…` over devnet's chain (its
 * blocks, transactions, mempool and Electrum script index), with devnet's Core as its daemon for
 * broadcasts and fee estimates. Paths are read and refused as electrs reads them
 * (src/protocol/esplora/request.ts).
 */
export async function startDevnetEsplora(opts: {
  chain: DevnetChain;
  network: Network;
  prevouts: (txid: string, vout: number) => Prevout | undefined;
  core: DevnetCoreServer;
  /** Default 0: any free port. */
  port?: number;
}): Promise<DevnetEsploraServer> {
  const client = new BitcoinCoreClient({
    url: opts.core.url,
    user: opts.core.user,
    password: opts.core.password,
    timeoutMs: 30_000,
    connections: 4,
  });
  const daemon: Daemon = async (calls) => {
    const out = await client.batch(calls);
    if (!out.ok) throw new Error(out.error.message);
    return out.answers;
  };
  const answer = answerer(opts, daemon);
  const stats: EsploraStats = { requests: 0 };
  const gate = new Gate();

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    stats.requests += 1;
    const path = new URL(req.url ?? "/", "http://esplora").pathname;
    if (!path.startsWith("/api/")) return send(res, text("Not Found", 404));
    let body = "";
    try {
      if (req.method === "POST") body = await readBody(req, BODY_BYTES_MAX);
    } catch (err) {
      if (!(err instanceof BodyTooLarge)) throw err;
      return send(res, text("payload too large", 413));
    }
    await gate.passed();
    const request = readEsploraRequest(req.method ?? "GET", path.slice("/api".length), body);
    if (isRefusal(request)) return send(res, text(request.text, request.status));
    return send(res, await answer(request));
  }

  // Not listening (its port taken): nothing will close its client, so it does so itself.
  const listener = await listenDevnet(serve, { port: opts.port, keepAliveTimeoutMs: 30_000 }).catch(
    async (err: unknown) => {
      await client.close();
      throw err;
    },
  );
  return {
    server: listener.server,
    url: `http://127.0.0.1:${listener.port}/api`,
    stats,
    hold: () => gate.hold(),
    async close() {
      await listener.close();
      await client.close();
    },
  };
}

function send(res: ServerResponse, reply: EsploraReply): void {
  res.writeHead(reply.status, { "content-type": reply.type });
  res.end(reply.body);
}
