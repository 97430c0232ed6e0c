import { addressToScript, parseAmount, toHex } from "../bitcoin/index.ts";
import type { Config, NetworkName } from "../config/schema.ts";
import { isJsonNumber, isJsonObject, jsonNumber } from "../protocol/json/json.ts";
import type { BitcoinCorePool } from "../upstreams/bitcoin-core/pool.ts";
import { blockActivity, type ScriptActivity } from "./block-activity.ts";
import type { ChainEvent } from "./types.ts";

/**
 * What a consumer of the chain's events (a GraphQL subscription, a webhook endpoint) makes of
 * them, and what each of its deliveries costs. One source per consumer: it may remember what it
 * delivered last (to deliver only changes).
 */
export interface EventSource<T> {
  /** Its price key, `pricing.events.<name>`, and its audit records' method. */
  name: EventName;
  /** The event to deliver for a chain event, or null for none (nothing delivered, nothing charged). */
  translate(event: ChainEvent): Promise<T | null>;
  /** Whether this delivery is the consumer's last (it then ends, plainly). */
  last?(delivered: T): boolean;
}

export type EventName = keyof Config["pricing"]["events"];

export const newBlocks = (): EventSource<ChainEvent> => ({
  name: "newBlock",
  translate: async (event) => event,
});

/** A transaction's confirmations, as the node counts them after a change of the chain. */
export interface Confirmations {
  txid: string;
  confirmations: number;
  blockHash: string | null;
}

/**
 * A transaction's confirmations after each change of the chain, through the node
 * (getrawtransaction, verbose): delivered when the count changed, the last one when it reaches
 * `until`. The look-up is the event's work: it is charged as the event, not as a call.
 */
export function confirmationsOf(
  pool: BitcoinCorePool,
  txid: string,
  until: number,
): EventSource<Confirmations> {
  let last = -1;
  return {
    name: "transactionConfirmations",
    async translate() {
      const out = await pool.batch([
        { method: "getrawtransaction", params: [txid, jsonNumber(1)] },
      ]);
      if (!out.ok) return null; // the next block asks again
      const answer = out.answers[0]!;
      if ("error" in answer) return null; // not known (yet): nothing to tell
      const result = answer.result;
      if (!isJsonObject(result)) return null;
      const confirmations = isJsonNumber(result.confirmations)
        ? Number(result.confirmations.value)
        : 0;
      if (confirmations === last) return null;
      last = confirmations;
      const blockHash = typeof result.blockhash === "string" ? result.blockhash : null;
      return { txid, confirmations, blockHash };
    },
    last: (c) => c.confirmations >= until,
  };
}

/** Core's fee estimates after a block, per confirmation target. */
export interface FeeRates {
  height: number;
  estimates: { target: number; satPerVbyte: number | null }[];
}

/** The confirmation targets a fee consumer may ask for: 1 to 25 of 1 – 1008 blocks. */
export function validTargets(targets: readonly number[]): boolean {
  return (
    targets.length > 0 &&
    targets.length <= 25 &&
    targets.every((n) => Number.isInteger(n) && n >= 1 && n <= 1008)
  );
}

/**
 * Core's fee estimates for `targets` after each block connected, delivered when they changed. The
 * estimates are the event's work (one JSON-RPC batch): charged as the event, not as calls.
 */
export function feesOf(pool: BitcoinCorePool, targets: number[]): EventSource<FeeRates> {
  let last = "";
  return {
    name: "mempoolFees",
    async translate(event) {
      if (event.kind !== "connected") return null;
      const out = await pool.batch(
        targets.map((target) => ({ method: "estimatesmartfee", params: [jsonNumber(target)] })),
      );
      if (!out.ok) return null;
      const estimates = out.answers.map((answer, i) => {
        const rate =
          "result" in answer && isJsonObject(answer.result) && isJsonNumber(answer.result.feerate)
            ? Number(parseAmount(answer.result.feerate.value)) / 1000 // BTC/kvB → sat/vB, exact
            : null;
        return { target: targets[i]!, satPerVbyte: rate };
      });
      const key = JSON.stringify(estimates);
      if (key === last) return null;
      last = key;
      return { height: event.height, estimates };
    },
  };
}

/** What one block (connected, or taken off by a reorganisation) did to an address. */
export interface AddressActivity {
  address: string;
  kind: ChainEvent["kind"];
  height: number;
  hash: string;
  /** The block's transactions that pay to the address or spend from it, in the block's order. */
  transactions: readonly ScriptActivity[];
}

/**
 * An address's activity in each block that comes or goes: the transactions paying to its script
 * (outputs) or spending from it (inputs' prevouts), delivered for a block with any. The block is
 * scanned once per network however many consumers watch it (block-activity.ts); each consumer only
 * looks its script up. Confirmed activity only: the mempool is not watched. Null when `address` is
 * not an address of `network` (the consumer refuses it before anything is charged).
 */
export function addressActivityOf(
  pool: BitcoinCorePool,
  address: string,
  network: NetworkName,
): EventSource<AddressActivity> | null {
  const script = addressToScript(address, network);
  if (!script) return null;
  const scriptHex = toHex(script);
  return {
    name: "addressActivity",
    async translate(event) {
      const activity = await blockActivity(pool, network, event.hash);
      const transactions = activity?.get(scriptHex);
      if (!transactions || transactions.length === 0) return null;
      return { address, kind: event.kind, height: event.height, hash: event.hash, transactions };
    },
  };
}
