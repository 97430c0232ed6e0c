/**
 * Esplora's REST requests as electrs' `handle_request` reads them (src/rest.rs): the path split on
 * `/`, matched arm by arm in electrs' order, each parameter parsed as electrs parses it and
 * refused in its words. The gateway reads a request here to price it and to refuse it before
 * anything is forwarded; devnet's Esplora reads it here to answer it.
 */

/** What Esplora answers a request it refuses: a status and a plain-text body. */
export interface EsploraRefusal {
  status: number;
  text: string;
}

/** Where an address or script-hash endpoint points. */
export interface ScriptTarget {
  kind: "address" | "scripthash";
  /** As written in the path: the address, or the script hash in hex. */
  text: string;
}

/** One request Esplora serves: its endpoint (the price key) and its parsed parameters. */
export interface EsploraRequest {
  endpoint: EsploraEndpoint;
  hash?: string;
  txid?: string;
  /** A height, block index, output index or page start, parsed as electrs parses it. */
  number?: number;
  script?: ScriptTarget;
  /** `/txs/chain/:last_seen_txid` (a txid that does not parse is dropped, as electrs does). */
  lastSeen?: string;
  /** POST /tx: the body, the transaction in hex. */
  body?: string;
}

/** Every endpoint the gateway serves, by the name it is priced, scoped and audited under. */
export const ESPLORA_ENDPOINTS = [
  "esplora.blocks.tip.height",
  "esplora.blocks.tip.hash",
  "esplora.blocks",
  "esplora.block-height",
  "esplora.block",
  "esplora.block.status",
  "esplora.block.txids",
  "esplora.block.header",
  "esplora.block.raw",
  "esplora.block.txid",
  "esplora.block.txs",
  "esplora.address",
  "esplora.address.txs",
  "esplora.address.txs.chain",
  "esplora.address.txs.mempool",
  "esplora.address.utxo",
  "esplora.scripthash",
  "esplora.scripthash.txs",
  "esplora.scripthash.txs.chain",
  "esplora.scripthash.txs.mempool",
  "esplora.scripthash.utxo",
  "esplora.tx",
  "esplora.tx.hex",
  "esplora.tx.raw",
  "esplora.tx.status",
  "esplora.tx.merkle-proof",
  "esplora.tx.outspend",
  "esplora.tx.outspends",
  "esplora.tx.broadcast",
  "esplora.mempool",
  "esplora.mempool.txids",
  "esplora.mempool.recent",
  "esplora.fee-estimates",
] as const;

export type EsploraEndpoint = (typeof ESPLORA_ENDPOINTS)[number];

/** electrs' HttpError::from(String): 400 with the message. */
export const badRequest = (text: string): EsploraRefusal => ({ status: 400, text });
/** electrs' HttpError::not_found. */
export const notFound = (text: string): EsploraRefusal => ({ status: 404, text });

const INVALID_HEX = badRequest("Invalid hex string");
const INVALID_NUMBER = badRequest("Invalid number");

/** `Txid::from_hex` / `BlockHash::from_hex`: 64 hex digits, any case. */
function hash256(text: string): string | EsploraRefusal {
  return /^[0-9a-fA-F]{64}$/.test(text) ? text.toLowerCase() : INVALID_HEX;
}

/**
 * Rust's `str::parse` of an unsigned integer: ASCII digits with an optional leading `+`, within
 * the type's range (usize is 64-bit on the servers electrs runs on). A value past 2^53 parses
 * (to an inexact number that finds nothing), as it does in electrs.
 */
export function parseUnsigned(text: string, max: bigint): number | undefined {
  if (!/^\+?[0-9]+$/.test(text)) return undefined;
  const digits = text.replace(/^\+/, "");
  return BigInt(digits) <= max ? Number(digits) : undefined;
}

const U32_MAX = 0xffff_ffffn;
const USIZE_MAX = 0xffff_ffff_ffff_ffffn;

/** A request's path (after the API's base) and method, read as electrs reads it. */
export function readEsploraRequest(
  method: string,
  path: string,
  body: string,
): EsploraRequest | EsploraRefusal {
  // electrs: `uri.path().split('/').skip(1)`; the path always starts with '/'.
  const p = path.split("/").slice(1);
  const [a, b, c, d] = p;
  const n = p.length;
  const notThere = notFound(`endpoint does not exist ${JSON.stringify(path)}`);
  if (method === "POST") {
    return a === "tx" && n === 1 ? { endpoint: "esplora.tx.broadcast", body } : notThere;
  }
  if (method !== "GET") return notThere;
  if (a === "blocks") return blocksRequest(p) ?? notThere;
  if (a === "block-height" && n === 2) {
    const height = parseUnsigned(b!, USIZE_MAX);
    return height === undefined
      ? INVALID_NUMBER
      : { endpoint: "esplora.block-height", number: height };
  }
  if (a === "block" && n >= 2) return blockRequest(b!, p.slice(2)) ?? notThere;
  if ((a === "address" || a === "scripthash") && n >= 2) {
    return scriptRequest({ kind: a, text: b! }, p.slice(2)) ?? notThere;
  }
  if (a === "tx" && n >= 2) return txRequest(b!, c, d, n) ?? notThere;
  if (a === "mempool" && n === 1) return { endpoint: "esplora.mempool" };
  if (a === "mempool" && n === 2 && b === "txids") return { endpoint: "esplora.mempool.txids" };
  if (a === "mempool" && n === 2 && b === "recent") return { endpoint: "esplora.mempool.recent" };
  if (a === "fee-estimates" && n === 1) return { endpoint: "esplora.fee-estimates" };
  return notThere;
}

/** `/blocks/tip/hash`, `/blocks/tip/height`, `/blocks[/:start_height]` (unparsable: the tip). */
function blocksRequest(p: string[]): EsploraRequest | undefined {
  if (p.length === 3 && p[1] === "tip" && p[2] === "hash")
    return { endpoint: "esplora.blocks.tip.hash" };
  if (p.length === 3 && p[1] === "tip" && p[2] === "height") {
    return { endpoint: "esplora.blocks.tip.height" };
  }
  if (p.length > 2) return undefined;
  const start = p[1] === undefined ? undefined : parseUnsigned(p[1], USIZE_MAX);
  return start === undefined
    ? { endpoint: "esplora.blocks" }
    : { endpoint: "esplora.blocks", number: start };
}

/** `/block/:hash[/status|txids|header|raw|txid/:index|txs[/:start_index]]`. */
function blockRequest(text: string, rest: string[]): EsploraRequest | EsploraRefusal | undefined {
  const [what, arg] = rest;
  const simple = {
    undefined: "esplora.block",
    status: "esplora.block.status",
    txids: "esplora.block.txids",
    header: "esplora.block.header",
    raw: "esplora.block.raw",
  } as const;
  let endpoint: EsploraEndpoint | undefined;
  if (rest.length <= 1) endpoint = simple[String(what) as keyof typeof simple];
  else if (rest.length === 2 && what === "txid") endpoint = "esplora.block.txid";
  if (rest.length <= 2 && what === "txs") endpoint = "esplora.block.txs";
  if (!endpoint) return undefined;
  const hash = hash256(text);
  if (typeof hash !== "string") return hash;
  if (endpoint === "esplora.block.txid") {
    const index = parseUnsigned(arg!, USIZE_MAX);
    return index === undefined ? INVALID_NUMBER : { endpoint, hash, number: index };
  }
  if (endpoint === "esplora.block.txs") {
    // electrs: `start_index.map_or(0, |el| el.parse().unwrap_or(0))`.
    return { endpoint, hash, number: arg === undefined ? 0 : (parseUnsigned(arg, U32_MAX) ?? 0) };
  }
  return { endpoint, hash };
}

/** `/address/:address…` and `/scripthash/:hash…`: the target is checked where it is resolved. */
function scriptRequest(script: ScriptTarget, rest: string[]): EsploraRequest | undefined {
  const [what, sub, last] = rest;
  const base = script.kind === "address" ? "esplora.address" : "esplora.scripthash";
  if (rest.length === 0) return { endpoint: base, script };
  if (what === "utxo" && rest.length === 1) return { endpoint: `${base}.utxo`, script };
  if (what !== "txs") return undefined;
  if (rest.length === 1) return { endpoint: `${base}.txs`, script };
  if (sub === "mempool" && rest.length === 2) return { endpoint: `${base}.txs.mempool`, script };
  // electrs matches five segments and never looks past them.
  if (sub !== "chain") return undefined;
  const seen = last !== undefined && /^[0-9a-fA-F]{64}$/.test(last) ? last.toLowerCase() : null;
  return { endpoint: `${base}.txs.chain`, script, ...(seen ? { lastSeen: seen } : {}) };
}

/** `/tx/:txid[/status|hex|raw|merkle-proof|outspends|outspend/:vout]`. */
function txRequest(
  text: string,
  what: string | undefined,
  arg: string | undefined,
  n: number,
): EsploraRequest | EsploraRefusal | undefined {
  const simple: Record<string, EsploraEndpoint> = {
    status: "esplora.tx.status",
    hex: "esplora.tx.hex",
    raw: "esplora.tx.raw",
    "merkle-proof": "esplora.tx.merkle-proof",
    outspends: "esplora.tx.outspends",
  };
  let endpoint: EsploraEndpoint | undefined;
  if (n === 2) endpoint = "esplora.tx";
  else if (n === 3 && what !== undefined && Object.hasOwn(simple, what)) endpoint = simple[what];
  else if (n === 4 && what === "outspend") endpoint = "esplora.tx.outspend";
  if (!endpoint) return undefined;
  const txid = hash256(text);
  if (typeof txid !== "string") return txid;
  if (endpoint !== "esplora.tx.outspend") return { endpoint, txid };
  const vout = parseUnsigned(arg!, U32_MAX);
  return vout === undefined ? INVALID_NUMBER : { endpoint, txid, number: vout };
}

/** Whether a request only reads (retried, hedged and shared); POST /tx has effects. */
export function isRead(request: EsploraRequest): boolean {
  return request.endpoint !== "esplora.tx.broadcast";
}

export function isRefusal(r: EsploraRequest | EsploraRefusal): r is EsploraRefusal {
  return "status" in r;
}
