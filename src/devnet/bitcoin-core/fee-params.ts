import { parseAmount } from "../../bitcoin/index.ts";
import { RPC_INVALID_PARAMETER, RPC_TYPE_ERROR } from "../../protocol/core/params.ts";
import { isJsonNumber, type Json } from "../../protocol/json/json.ts";
import { RpcError } from "./rpc-error.ts";

/** Core's DEFAULT_MAX_RAW_TX_FEE_RATE: 0.10 BTC/kvB, in sat per 1000 vbytes. */
export const DEFAULT_MAX_FEERATE = 10_000_000n;

/**
 * Core's AmountFromValue for a BTC amount given as a number or a string: -3 "Invalid amount"
 * when it has more than 8 decimals or is negative, "Amount out of range" above 21M.
 */
export function amountArg(value: Json, fallback: bigint): bigint {
  if (value === null || value === undefined) return fallback;
  const text = isJsonNumber(value) ? value.value : typeof value === "string" ? value : "";
  let sats: bigint;
  try {
    sats = parseAmount(text);
  } catch {
    throw new RpcError(RPC_TYPE_ERROR, "Invalid amount");
  }
  if (sats < 0n) throw new RpcError(RPC_TYPE_ERROR, "Amount out of range");
  if (sats > 21_000_000n * 100_000_000n) throw new RpcError(RPC_TYPE_ERROR, "Amount out of range");
  return sats;
}

/** Core's ParseFeeRate (rpc/util.cpp): a BTC/kvB amount below 1 BTC/kvB, in sat per 1000 vbytes. */
export function feeRateArg(value: Json, fallback: bigint): bigint {
  const rate = amountArg(value, fallback);
  if (rate >= 100_000_000n) {
    throw new RpcError(
      RPC_INVALID_PARAMETER,
      "Fee rates larger than or equal to 1BTC/kvB are not accepted",
    );
  }
  return rate;
}

/** Core's MAX_PACKAGE_COUNT. */
export const MAX_PACKAGE_COUNT = 25;

/** A package's raw transactions (testmempoolaccept, submitpackage): 1 to 25, as Core checks. */
export function packageArg(list: unknown): Json[] {
  const hexes = list as Json[];
  if (hexes.length < 1 || hexes.length > MAX_PACKAGE_COUNT) {
    throw new RpcError(
      RPC_INVALID_PARAMETER,
      `Array must contain between 1 and ${MAX_PACKAGE_COUNT} transactions.`,
    );
  }
  return hexes;
}
