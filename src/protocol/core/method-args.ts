import type { Json } from "../json/json.ts";
import type { CoreMethodArgs } from "./args.ts";
import { hashParam, parseVerbosity } from "./args.ts";

const none = (usage: string): CoreMethodArgs => ({ usage, args: [] });

/** Checks a hash parameter with ParseHashV under the name the method's body gives it. */
const hashAt =
  (index: number, name: string) =>
  (params: Json[]): ReturnType<NonNullable<CoreMethodArgs["check"]>> =>
    hashParam(params[index], name);

/**
 * Bitcoin Core's read methods the node route serves besides getrawtransaction (which keeps its own
 * checks, src/protocol/core/methods.ts): each one's RPCArgs as Core declares them (names, types,
 * which are optional, which skip the type check) and the checks its body makes before it reads
 * the chain. Every other method — wallet, mining, control, P2P — is refused as unknown.
 */
export const CORE_METHOD_ARGS: Record<string, CoreMethodArgs> = {
  getblock: {
    usage: 'getblock "blockhash" ( verbosity )',
    args: [
      { names: "blockhash", type: "hex" },
      {
        names: "verbosity|verbose",
        type: "num",
        optional: true,
        anyType: true,
        shownType: "number or boolean",
      },
    ],
    check(params) {
      const bad = hashParam(params[0], "blockhash");
      if (bad) return bad;
      const verbosity = parseVerbosity(params[1], 1, true);
      if (typeof verbosity !== "number") return verbosity;
      // Core: <= 0 raw hex, 1 txids, 2 decoded transactions, >= 3 with every prevout.
      return verbosity >= 3 ? { variant: "3" } : verbosity === 2 ? { variant: "2" } : {};
    },
  },
  getblockhash: { usage: "getblockhash height", args: [{ names: "height", type: "num" }] },
  getblockheader: {
    usage: 'getblockheader "blockhash" ( verbose )',
    args: [
      { names: "blockhash", type: "hex" },
      { names: "verbose", type: "bool", optional: true },
    ],
    check: hashAt(0, "hash"),
  },
  getblockcount: none("getblockcount"),
  getbestblockhash: none("getbestblockhash"),
  getblockchaininfo: none("getblockchaininfo"),
  getblockstats: {
    usage: "getblockstats hash_or_height ( stats )",
    args: [
      { names: "hash_or_height", type: "num", anyType: true, shownType: "hex string or number" },
      { names: "stats", type: "arr", optional: true },
    ],
  },
  getchaintips: none("getchaintips"),
  getdifficulty: none("getdifficulty"),
  getmempoolinfo: none("getmempoolinfo"),
  getrawmempool: {
    usage: "getrawmempool ( verbose mempool_sequence )",
    args: [
      { names: "verbose", type: "bool", optional: true },
      { names: "mempool_sequence", type: "bool", optional: true },
    ],
    check: (params) => (params[0] === true ? { variant: "verbose" } : {}),
  },
  getmempoolentry: {
    usage: 'getmempoolentry "txid"',
    args: [{ names: "txid", type: "hex" }],
    check: hashAt(0, "parameter 1"),
  },
  gettxout: {
    usage: 'gettxout "txid" n ( include_mempool )',
    args: [
      { names: "txid", type: "hex" },
      { names: "n", type: "num" },
      { names: "include_mempool", type: "bool", optional: true },
    ],
    check: hashAt(0, "txid"),
  },
  gettxoutproof: {
    usage: 'gettxoutproof ["txid",...] ( "blockhash" )',
    args: [
      { names: "txids", type: "arr" },
      { names: "blockhash", type: "hex", optional: true },
    ],
  },
  estimatesmartfee: {
    usage: 'estimatesmartfee conf_target ( "estimate_mode" )',
    args: [
      { names: "conf_target", type: "num" },
      { names: "estimate_mode", type: "str", optional: true },
    ],
  },
  decoderawtransaction: {
    usage: 'decoderawtransaction "hexstring" ( iswitness )',
    args: [
      { names: "hexstring", type: "hex" },
      { names: "iswitness", type: "bool", optional: true },
    ],
  },
  decodescript: { usage: 'decodescript "hexstring"', args: [{ names: "hexstring", type: "hex" }] },
  validateaddress: {
    usage: 'validateaddress "address"',
    args: [{ names: "address", type: "str" }],
  },
  getnetworkinfo: none("getnetworkinfo"),
  uptime: none("uptime"),
  sendrawtransaction: {
    usage: 'sendrawtransaction "hexstring" ( maxfeerate maxburnamount )',
    args: [
      { names: "hexstring", type: "hex" },
      { names: "maxfeerate", type: "amount", optional: true },
      { names: "maxburnamount", type: "amount", optional: true },
    ],
  },
  testmempoolaccept: {
    usage: 'testmempoolaccept ["rawtx",...] ( maxfeerate )',
    args: [
      { names: "rawtxs", type: "arr" },
      { names: "maxfeerate", type: "amount", optional: true },
    ],
  },
  submitpackage: {
    usage: 'submitpackage ["rawtx",...] ( maxfeerate maxburnamount )',
    args: [
      { names: "package", type: "arr" },
      { names: "maxfeerate", type: "amount", optional: true },
      { names: "maxburnamount", type: "amount", optional: true },
    ],
  },
};
