import type { NetworkName } from "../../config/schema.ts";
import type { Json } from "../json/json.ts";
import type { Checked, RpcErrorObject } from "../json/types.ts";
import { parseVerbosity } from "./args.ts";
import {
  asPositional,
  checkHash,
  isRpcError,
  RPC_MISC_ERROR,
  RPC_TYPE_ERROR,
  uvTypeName,
  writeIndented4,
} from "./params.ts";

/** The genesis coinbase's txid (its block's merkle root), which Core refuses to look up. */
const GENESIS_COINBASE: Record<NetworkName, string> = {
  mainnet: "4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b",
  testnet: "4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b",
  signet: "4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b",
  regtest: "4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b",
  testnet4: "7aa0a7ae1e223414cb807e40cd57e667b718e42aaf9306db9102fe28912b7b4e",
};

const GETRAWTRANSACTION_NAMES = ["txid", "verbosity|verbose", "blockhash"] as const;

/**
 * getrawtransaction's checks in the order Core makes them (src/rpc/rawtransaction.cpp and
 * RPCHelpMan::HandleRequest): argument count, argument types, txid, then — after the node-side
 * genesis check — verbosity and blockhash. What needs chain state (genesis, unknown block, unknown
 * transaction) is left to the node, so a txid naming the genesis coinbase is forwarded as it is.
 */
export function checkGetRawTransaction(
  raw: Json[] | { [key: string]: Json },
  network: NetworkName,
): Checked {
  const positional = asPositional(raw, GETRAWTRANSACTION_NAMES);
  if (isRpcError(positional)) return { ok: false, error: positional };
  const params = positional as Json[];
  if (params.length < 1 || params.length > 3) {
    return {
      ok: false,
      error: {
        code: RPC_MISC_ERROR,
        message:
          'getrawtransaction "txid" ( verbosity "blockhash" )\n\nBy default, this call only returns a transaction if it is in the mempool. ' +
          "If -txindex is enabled and no blockhash argument is passed, it will return the transaction if it is in a block in the blockchain.\n" +
          "(blockgate gives Core's usage line only: pass 1 to 3 parameters)",
      },
    };
  }
  const [txid, verbosity = null, blockhash = null] = params;
  // MatchesType: txid is a required string; blockhash an optional string; verbosity unchecked.
  const mismatches: [string, string][] = [];
  if (typeof txid !== "string") {
    mismatches.push([
      "Position 1 (txid)",
      `JSON value of type ${uvTypeName(txid)} is not of expected type string`,
    ]);
  }
  if (blockhash !== null && typeof blockhash !== "string") {
    mismatches.push([
      "Position 3 (blockhash)",
      `JSON value of type ${uvTypeName(blockhash)} is not of expected type string`,
    ]);
  }
  if (mismatches.length > 0) {
    return {
      ok: false,
      error: { code: RPC_TYPE_ERROR, message: `Wrong type passed:\n${writeIndented4(mismatches)}` },
    };
  }
  const txidError = checkHash(txid as string, "parameter 1");
  if (txidError) return { ok: false, error: txidError };
  if ((txid as string).toLowerCase() === GENESIS_COINBASE[network]) return { ok: true, params };
  const verbosityError = checkVerbosity(verbosity);
  if (verbosityError) return { ok: false, error: verbosityError };
  if (typeof blockhash === "string") {
    const blockError = checkHash(blockhash, "parameter 3");
    if (blockError) return { ok: false, error: blockError };
  }
  return { ok: true, params };
}

/** Core's ParseVerbosity with allow_bool: null, a boolean, or an integer that fits an int. */
function checkVerbosity(value: Json): RpcErrorObject | null {
  const verbosity = parseVerbosity(value, 0, true);
  return typeof verbosity === "number" ? null : verbosity;
}
