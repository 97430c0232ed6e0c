import { toHex } from "../../bitcoin/hex.ts";
import {
  BAD_REQUEST,
  DAEMON_ERROR,
  hash32Hex,
  isPyBool,
  pyBoolValue,
  TRANSACTION_GET,
  txHashError,
} from "../../jsonrpc/electrum-params.ts";
import { isJsonNumber, type Json, jsonNumber } from "../../jsonrpc/json.ts";
import { pyStr, pyThousands } from "../../jsonrpc/python-text.ts";
import type { DevnetChain } from "../chain.ts";
import { type Daemon, DaemonError } from "./daemon.ts";
import type { HistoryEntry } from "./history.ts";

/** An RPCError raised by a handler; `disconnect` is aiorpcx's ReplyAndDisconnect. */
export class ElectrumRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly disconnect = false,
  ) {
    super(message);
  }
}

export const SERVER_VERSION = "ElectrumX 1.18.0 (blockgate devnet)";
const PROTOCOL_MIN = [1, 4];
const PROTOCOL_MAX = [1, 6];

/** What one connection remembers (ElectrumX's session attributes). */
export interface SessionState {
  svSeen: boolean;
  client: string;
  protocol: string | null;
  subscribedHeaders: boolean;
  /** Aborted when the connection or the server closes: ends waits on the daemon. */
  signal: AbortSignal;
}

export interface Handler {
  /** aiorpcx's signature_info: parameter names, the required ones first. */
  required: readonly string[];
  optional: readonly string[];
  run(session: SessionState, args: (Json | undefined)[]): Promise<Json> | Json;
}

/**
 * The methods devnet's Electrum server answers, with ElectrumX's checks and words. Transactions
 * come from the daemon (devnet's Core over HTTP, as ElectrumX proxies bitcoind); headers from the
 * chain store, as ElectrumX serves them from its own database.
 */
export function electrumMethods(
  chain: DevnetChain,
  daemon: Daemon,
  history: (scripthash: string) => HistoryEntry[],
): Record<string, Handler> {
  return {
    "blockchain.scripthash.get_history": {
      required: ["scripthash"],
      optional: [],
      run(_session, [scripthash]) {
        const hash = hash32Hex(scripthash);
        if (hash === null) {
          throw new ElectrumRpcError(
            BAD_REQUEST,
            `${pyStr(scripthash)} is not a valid script hash`,
          );
        }
        return history(hash).map((e): Json => {
          const entry: { [key: string]: Json } = { tx_hash: e.txid, height: jsonNumber(e.height) };
          if (e.height <= 0 && e.feeSats !== undefined) entry.fee = jsonNumber(e.feeSats);
          return entry;
        });
      },
    },
    "server.version": {
      required: [],
      optional: ["client_name", "protocol_version"],
      run(session, [clientName = "", protocolVersion = null]) {
        if (session.svSeen) throw new ElectrumRpcError(BAD_REQUEST, "server.version already sent");
        session.svSeen = true;
        if (truthy(clientName)) session.client = pyStr(clientName).slice(0, 17);
        const negotiated = negotiate(protocolVersion);
        if (!negotiated) {
          throw new ElectrumRpcError(
            BAD_REQUEST,
            `unsupported protocol version: ${pyStr(protocolVersion)}`,
            true,
          );
        }
        session.protocol = versionString(negotiated);
        return [SERVER_VERSION, session.protocol];
      },
    },
    "server.ping": { required: [], optional: [], run: () => null },
    "blockchain.transaction.get": {
      ...TRANSACTION_GET,
      async run(session, [txHash, verbose = false]) {
        const hashError = txHashError(txHash);
        if (hashError) throw new ElectrumRpcError(hashError.code, hashError.message);
        if (!isPyBool(verbose)) {
          throw new ElectrumRpcError(BAD_REQUEST, '"verbose" must be a boolean');
        }
        // daemon.py casts to int "because some coin daemons are old and require it".
        const flag = jsonNumber(pyBoolValue(verbose) ? 1 : 0);
        try {
          return await daemon.request("getrawtransaction", [txHash as Json, flag], session.signal);
        } catch (err) {
          if (err instanceof DaemonError) {
            throw new ElectrumRpcError(DAEMON_ERROR, `daemon error: ${err.pyRepr()}`);
          }
          throw err;
        }
      },
    },
    "blockchain.headers.subscribe": {
      required: [],
      optional: [],
      run(session) {
        session.subscribedHeaders = true;
        return tipHeader(chain);
      },
    },
    "blockchain.block.header": {
      required: ["height"],
      optional: ["cp_height"],
      run(_session, [heightArg, cpArg = jsonNumber(0)]) {
        const height = nonNegativeInteger(heightArg);
        const cpHeight = nonNegativeInteger(cpArg);
        const entry = chain.byHeight.get(height);
        if (!entry || height > chain.tip.height) {
          throw new ElectrumRpcError(BAD_REQUEST, `height ${pyThousands(height)} out of range`);
        }
        if (cpHeight !== 0) {
          // A checkpoint proof needs every header up to cp_height; devnet's chain is sparse.
          throw new ElectrumRpcError(
            BAD_REQUEST,
            "devnet holds a sparse chain: no cp_height proofs",
          );
        }
        return toHex(entry.block.headerBytes);
      },
    },
  };
}

/** The result of blockchain.headers.subscribe and of its notifications. */
export function tipHeader(chain: DevnetChain): Json {
  return { hex: toHex(chain.tip.block.headerBytes), height: jsonNumber(chain.tip.height) };
}

/** non_negative_integer: Python's int() of the value, then >= 0. */
function nonNegativeInteger(value: Json | undefined): number {
  let n: number | undefined;
  if (typeof value === "boolean") n = Number(value);
  else if (isJsonNumber(value)) n = Math.trunc(Number(value.value));
  else if (typeof value === "string" && /^\s*[+-]?\d+\s*$/.test(value)) n = Number(value.trim());
  if (n !== undefined && Number.isSafeInteger(n) && n >= 0) return n;
  const shown = n !== undefined ? String(n) : pyStr(value);
  throw new ElectrumRpcError(BAD_REQUEST, `${shown} should be a non-negative integer`);
}

function truthy(value: Json | undefined): boolean {
  if (value === null || value === undefined || value === false || value === "") return false;
  if (isJsonNumber(value)) return Number(value.value) !== 0;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "object") return Object.keys(value).length > 0;
  return true;
}

/** util.protocol_tuple: "1.4.2" → [1, 4, 2]; anything unreadable → [0]. */
function protocolTuple(value: Json | undefined): number[] {
  if (typeof value !== "string") return [0];
  const parts = value.split(".");
  if (!parts.every((p) => /^\s*[+-]?\d+\s*$/.test(p))) return [0];
  return parts.map((p) => Number(p.trim()));
}

function compare(a: number[], b: number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i] !== b[i]) return a[i]! - b[i]!;
  }
  return a.length - b.length;
}

/** util.protocol_version: the highest version both sides speak, or null. */
function negotiate(request: Json | undefined): number[] | null {
  let clientMin: number[];
  let clientMax: number[];
  if (request === null || request === undefined) {
    clientMin = PROTOCOL_MIN;
    clientMax = PROTOCOL_MIN;
  } else if (Array.isArray(request) && request.length === 2) {
    clientMin = protocolTuple(request[0]);
    clientMax = protocolTuple(request[1]);
  } else {
    clientMin = protocolTuple(request);
    clientMax = clientMin;
  }
  const result = compare(clientMax, PROTOCOL_MAX) < 0 ? clientMax : PROTOCOL_MAX;
  const floor = compare(clientMin, PROTOCOL_MIN) > 0 ? clientMin : PROTOCOL_MIN;
  if (compare(result, floor) < 0 || compare(result, [0]) === 0) return null;
  return result;
}

/** util.version_string: at least one dot, so [1] is "1.0". */
function versionString(tuple: number[]): string {
  const padded = [...tuple];
  while (padded.length < 2) padded.push(0);
  return padded.join(".");
}
