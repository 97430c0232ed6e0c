import { isJsonNumber, type Json, jsonNumber } from "../json/json.ts";
import type { Checked, RpcErrorObject } from "../json/types.ts";
import { BAD_REQUEST, bindArgs, hash32Hex, isPyBool, pyBoolValue } from "./params.ts";
import { pyStr } from "./python-text.ts";

/** A refusal raised while checking one argument; caught by checkElectrumArgs. */
class ArgRefusal extends Error {
  constructor(readonly error: RpcErrorObject) {
    super(error.message);
  }
}

const refuse = (message: string): never => {
  throw new ArgRefusal({ code: BAD_REQUEST, message });
};

/** non_negative_integer: Python's int() of the value, then >= 0. */
export function nonNegativeInteger(value: Json | undefined): number {
  let n: number | undefined;
  if (typeof value === "boolean") n = Number(value);
  else if (isJsonNumber(value)) n = Math.trunc(Number(value.value));
  else if (typeof value === "string" && /^\s*[+-]?\d+\s*$/.test(value)) n = Number(value.trim());
  if (n !== undefined && Number.isSafeInteger(n) && n >= 0) return n;
  return refuse(`${n !== undefined ? String(n) : pyStr(value)} should be a non-negative integer`);
}

/** scripthash_to_hashX's test: 32 bytes of hex, else `<v> is not a valid script hash`. */
function scripthash(value: Json | undefined): string {
  return hash32Hex(value) ?? refuse(`${pyStr(value)} is not a valid script hash`);
}

/** assert_tx_hash. */
function txHash(value: Json | undefined): string {
  return hash32Hex(value) ?? refuse(`${pyStr(value)} should be a transaction hash`);
}

/** Coin.ESTIMATEFEE_MODES: None and Core's two modes; anything else would miss the cache. */
const ESTIMATEFEE_MODES: readonly (Json | undefined)[] = [
  undefined,
  null,
  "CONSERVATIVE",
  "ECONOMICAL",
];

type Args = (Json | undefined)[];

export interface ElectrumSignature {
  /** aiorpcx's signature_info: parameter names, the required ones first. */
  required: readonly string[];
  optional: readonly string[];
  /**
   * The checks ElectrumX's handler makes before it looks anything up, in its order and words;
   * returns the arguments normalised (hashes as plain lowercase hex, integers as numbers).
   */
  check(args: Args): Json[];
}

const none: ElectrumSignature = { required: [], optional: [], check: () => [] };
const byScripthash: ElectrumSignature = {
  required: ["scripthash"],
  optional: [],
  check: ([hash]) => [scripthash(hash)],
};
const n = (value: number): Json => jsonNumber(value);

/**
 * Electrum protocol 1.4's read API as ElectrumX 1.18 declares it (session.py's handlers), with
 * the argument checks each handler makes. Shared by the gateway's Electrum route (which checks
 * before forwarding or charging) and devnet's ElectrumX (which checks before answering).
 */
export const ELECTRUM_SIGNATURES: Readonly<Record<string, ElectrumSignature>> = {
  "server.version": {
    required: [],
    optional: ["client_name", "protocol_version"],
    check: (args) => args.filter((a): a is Json => a !== undefined),
  },
  // The hash goes to the daemon as the client wrote it (ElectrumX checks it, then passes it on).
  "blockchain.transaction.get": {
    required: ["tx_hash"],
    optional: ["verbose"],
    check: ([hash, verbose = false]) => {
      txHash(hash);
      if (!isPyBool(verbose)) refuse('"verbose" must be a boolean');
      return [hash as Json, pyBoolValue(verbose)];
    },
  },
  "server.features": none,
  "server.banner": none,
  "server.ping": none,
  "server.donation_address": none,
  "server.peers.subscribe": none,
  // ElectrumX reads the features only when it discovers peers; until then any value is answered.
  "server.add_peer": {
    required: ["features"],
    optional: [],
    check: ([features]) => [features as Json],
  },
  "blockchain.headers.subscribe": none,
  "blockchain.relayfee": none,
  "mempool.get_fee_histogram": none,
  "blockchain.block.header": {
    required: ["height"],
    optional: ["cp_height"],
    check: ([height, cp = n(0)]) => [n(nonNegativeInteger(height)), n(nonNegativeInteger(cp))],
  },
  "blockchain.block.headers": {
    required: ["start_height", "count"],
    optional: ["cp_height"],
    check: ([start, count, cp = n(0)]) => [
      n(nonNegativeInteger(start)),
      n(nonNegativeInteger(count)),
      n(nonNegativeInteger(cp)),
    ],
  },
  "blockchain.estimatefee": {
    required: ["number"],
    optional: ["mode"],
    check: ([number, mode]) => {
      const blocks = n(nonNegativeInteger(number));
      if (!ESTIMATEFEE_MODES.includes(mode)) refuse(`unknown estimatefee mode: ${pyStr(mode)}`);
      return mode === undefined || mode === null ? [blocks] : [blocks, mode];
    },
  },
  "blockchain.scripthash.get_balance": byScripthash,
  "blockchain.scripthash.get_history": byScripthash,
  "blockchain.scripthash.get_mempool": byScripthash,
  "blockchain.scripthash.listunspent": byScripthash,
  "blockchain.scripthash.subscribe": byScripthash,
  // Protocol 1.4.2; ElectrumX answers whether the session was subscribed.
  "blockchain.scripthash.unsubscribe": byScripthash,
  "blockchain.transaction.get_merkle": {
    required: ["tx_hash", "height"],
    optional: [],
    check: ([hash, height]) => [txHash(hash), n(nonNegativeInteger(height))],
  },
  "blockchain.transaction.id_from_pos": {
    required: ["height", "tx_pos"],
    optional: ["merkle"],
    check: ([height, pos, merkle = false]) => {
      // ElectrumX reads tx_pos before height, so a call with both wrong names tx_pos.
      const txPos = nonNegativeInteger(pos);
      const at = nonNegativeInteger(height);
      if (!isPyBool(merkle)) refuse('"merkle" must be a boolean');
      return [n(at), n(txPos), pyBoolValue(merkle)];
    },
  },
  // ElectrumX checks nothing before it hands raw_tx to the daemon, which judges it.
  "blockchain.transaction.broadcast": {
    required: ["raw_tx"],
    optional: [],
    check: ([raw]) => [raw as Json],
  },
};

/**
 * aiorpcx's binding of positional or named arguments, then the handler's own checks; refusals
 * in their words (-32602 for the binding, code 1 for the handler's).
 */
export function checkElectrumArgs(
  method: string,
  signature: ElectrumSignature,
  params: Json[] | { [key: string]: Json },
): Checked {
  const args = bindArgs(method, params, signature.required, signature.optional);
  if (!Array.isArray(args)) return { ok: false, error: args };
  return checkBoundArgs(signature, args);
}

/** The handler's own checks on arguments already bound (devnet's server binds them itself). */
export function checkBoundArgs(signature: ElectrumSignature, args: Args): Checked {
  try {
    return { ok: true, params: signature.check(args) };
  } catch (err) {
    if (err instanceof ArgRefusal) return { ok: false, error: err.error };
    throw err;
  }
}
