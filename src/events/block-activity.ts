import { parseAmount } from "../bitcoin/index.ts";
import type { NetworkName } from "../config/schema.ts";
import { isJsonNumber, isJsonObject, type Json, jsonNumber } from "../protocol/json/json.ts";
import type { BitcoinCorePool } from "../upstreams/bitcoin-core/pool.ts";

/** What one transaction of a block did to one output script: sats paid to it and spent from it. */
export interface ScriptActivity {
  txid: string;
  received: bigint;
  sent: bigint;
}

/** A block's activity, by output script (hex): the block's transactions that touch each script. */
export type BlockActivity = ReadonlyMap<string, readonly ScriptActivity[]>;

/**
 * Blocks whose scan is kept. Every subscriber asks within moments of the block's event, so a few
 * cover a burst (a reorganisation, a catch-up); a mainnet block's scan holds thousands of scripts,
 * so not many more. One asked again after it was dropped is fetched again.
 */
const BLOCKS_KEPT = 8;

/**
 * Every subscriber to an address's activity looks at the same block: it is fetched and scanned
 * once per network and block, and each subscriber then only looks its script up. Kept per pool
 * (one per network, for the gateway's life) rather than in a module-wide table keyed by network,
 * so that two gateways in one process (tests) never share what their nodes said.
 */
const scansOf = new WeakMap<BitcoinCorePool, Map<string, Promise<BlockActivity | null>>>();

/**
 * The activity of block `hash` of `network`, from Core's `getblock` at verbosity 3 (each input's
 * prevout, so spends are seen without a look-up per input); null when the node could not say
 * (the next subscriber of a later block asks afresh; a failed scan is not kept).
 */
export function blockActivity(
  pool: BitcoinCorePool,
  network: NetworkName,
  hash: string,
): Promise<BlockActivity | null> {
  let scans = scansOf.get(pool);
  if (!scans) {
    scans = new Map();
    scansOf.set(pool, scans);
  }
  const key = `${network}:${hash}`;
  const known = scans.get(key);
  if (known) return known;
  const scan = fetchAndScan(pool, hash);
  scans.set(key, scan);
  if (scans.size > BLOCKS_KEPT) scans.delete(scans.keys().next().value!);
  void scan.then((found) => {
    if (found === null) scans.delete(key);
  });
  return scan;
}

async function fetchAndScan(pool: BitcoinCorePool, hash: string): Promise<BlockActivity | null> {
  const out = await pool.batch([{ method: "getblock", params: [hash, jsonNumber(3)] }]);
  if (!out.ok) return null;
  const answer = out.answers[0]!;
  if ("error" in answer || !isJsonObject(answer.result)) return null;
  const txs = answer.result.tx;
  return Array.isArray(txs) ? scanBlock(txs) : null;
}

/** Each script's received and sent sats per transaction, in the block's order of transactions. */
export function scanBlock(txs: readonly Json[]): BlockActivity {
  const byScript = new Map<string, ScriptActivity[]>();
  for (const tx of txs) {
    if (!isJsonObject(tx) || typeof tx.txid !== "string") continue;
    const txid = tx.txid;
    const touch = (script: string, field: "received" | "sent", sats: bigint) => {
      let list = byScript.get(script);
      if (!list) {
        list = [];
        byScript.set(script, list);
      }
      let entry = list[list.length - 1];
      if (entry?.txid !== txid) {
        entry = { txid, received: 0n, sent: 0n };
        list.push(entry);
      }
      entry[field] += sats;
    };
    for (const output of Array.isArray(tx.vout) ? tx.vout : []) {
      const paid = valueAndScript(output);
      if (paid) touch(paid.script, "received", paid.sats);
    }
    for (const input of Array.isArray(tx.vin) ? tx.vin : []) {
      const spent = isJsonObject(input) ? valueAndScript(input.prevout) : null;
      if (spent) touch(spent.script, "sent", spent.sats);
    }
  }
  return byScript;
}

/** An output's (or a prevout's) value in sats and its script's hex, as Core writes them. */
function valueAndScript(output: Json | undefined): { sats: bigint; script: string } | null {
  if (!isJsonObject(output) || !isJsonNumber(output.value)) return null;
  const spk = output.scriptPubKey;
  if (!isJsonObject(spk) || typeof spk.hex !== "string") return null;
  return { sats: parseAmount(output.value.value), script: spk.hex.toLowerCase() };
}
