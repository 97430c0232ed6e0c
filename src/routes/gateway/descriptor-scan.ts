import { setImmediate as yieldLoop } from "node:timers/promises";
import type { DerivedAddress, ParsedDescriptor } from "../../bitcoin/output-descriptor.ts";
import { electrumScripthash } from "../../bitcoin/scripthash.ts";
import { isJsonNumber, isJsonObject, type Json } from "../../protocol/json/json.ts";
import { codedError } from "./errors.ts";
import { ask, type CallLoader } from "./upstream-calls.ts";

/** An entry of an address's history, as blockchain.scripthash.get_history gives it. */
export interface ScannedHistoryEntry {
  txid: string;
  height: number;
  fee: bigint | null;
}

/** A derived address whose history is not empty. */
export interface UsedAddress extends DerivedAddress {
  scripthash: string;
  history: ScannedHistoryEntry[];
}

export interface DescriptorScanResult {
  /** By branch, then index. */
  used: UsedAddress[];
  /** Addresses derived and looked up. */
  scanned: number;
  /** Rounds of look-ups: each sent together, at most gapLimit addresses a branch. */
  rounds: number;
}

/** Addresses derived between two turns of the event loop. */
const DERIVE_STRIDE = 4;

interface Branch {
  value: number | null;
  next: number;
  lastUsed: number;
}

/**
 * Scans a descriptor's branches for used addresses: each branch is looked up in rounds of at most
 * `gapLimit` addresses (the branches' rounds go together, one tick of the Electrum loader: pipelined
 * on the pool's connections), until `gapLimit` addresses in a row after the last used one are
 * unused. A descriptor without `*` is its one address. Stops with LIMIT_EXCEEDED before a round
 * that would pass `addressesMax`; the look-ups already answered stay charged.
 */
export async function scanDescriptor(
  electrum: CallLoader,
  parsed: ParsedDescriptor,
  gapLimit: number,
  addressesMax: number,
): Promise<DescriptorScanResult> {
  const result: DescriptorScanResult = { used: [], scanned: 0, rounds: 0 };
  if (!parsed.ranged) {
    const one = parsed.at(parsed.branches[0]!, null);
    const found = await lookUp(electrum, [one]);
    result.scanned = 1;
    result.rounds = 1;
    result.used = found.filter((a) => a.history.length > 0);
    return result;
  }
  const branches: Branch[] = parsed.branches.map((value) => ({ value, next: 0, lastUsed: -1 }));
  for (;;) {
    const wanted = branches.flatMap((b) => nextBatch(b, gapLimit));
    if (wanted.length === 0) {
      result.used.sort((x, y) => x.branch! - y.branch! || x.index! - y.index!);
      return result;
    }
    if (result.scanned + wanted.length > addressesMax) {
      throw codedError(
        "LIMIT_EXCEEDED",
        `the descriptor has more used addresses than a scan of ${addressesMax} addresses finds (graphql.descriptorAddressesMax): split it, or lower gapLimit`,
        { limit: addressesMax, scanned: result.scanned },
      );
    }
    const round = await derive(parsed, wanted);
    const found = await lookUp(electrum, round);
    result.scanned += round.length;
    result.rounds += 1;
    for (const a of found) {
      if (a.history.length === 0) continue;
      result.used.push(a);
      const branch = branches.find((b) => b.value === a.branch)!;
      branch.lastUsed = Math.max(branch.lastUsed, a.index!);
    }
  }
}

/** The branch's next indexes: up to gapLimit past its last used one, at most gapLimit at once. */
function nextBatch(b: Branch, gapLimit: number): [number | null, number][] {
  const end = Math.min(b.lastUsed + 1 + gapLimit, b.next + gapLimit);
  const batch: [number | null, number][] = [];
  for (let i = b.next; i < end; i++) batch.push([b.value, i]);
  b.next = Math.max(b.next, end);
  return batch;
}

/** Derivation takes milliseconds an address: the event loop is given back every few. */
async function derive(
  parsed: ParsedDescriptor,
  wanted: [number | null, number][],
): Promise<DerivedAddress[]> {
  const out: DerivedAddress[] = [];
  for (const [branch, index] of wanted) {
    if (out.length > 0 && out.length % DERIVE_STRIDE === 0) await yieldLoop();
    out.push(parsed.at(branch, index));
  }
  return out;
}

/** Each address's history, asked together (one tick of the loader). */
async function lookUp(electrum: CallLoader, addresses: DerivedAddress[]): Promise<UsedAddress[]> {
  return Promise.all(
    addresses.map(async (a) => {
      const scripthash = electrumScripthash(a.scriptPubKey);
      const answer = await ask(electrum, {
        method: "blockchain.scripthash.get_history",
        params: [scripthash],
      });
      return { ...a, scripthash, history: historyOf(answer) };
    }),
  );
}

function historyOf(answer: Json): ScannedHistoryEntry[] {
  if (!Array.isArray(answer) || !answer.every((e) => isJsonObject(e))) {
    throw codedError("UPSTREAM_BAD_RESPONSE", "the Electrum server's history is not a list");
  }
  return (answer as { [key: string]: Json }[]).map((e) => ({
    txid: String(e.tx_hash),
    height: isJsonNumber(e.height) ? Number(e.height.value) : 0,
    fee: isJsonNumber(e.fee) ? BigInt(e.fee.value) : null,
  }));
}
