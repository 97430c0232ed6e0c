import type { LosslessNumber } from "lossless-json";
import { solutionToAddress } from "./address.ts";
import { amountToJson } from "./amount.ts";
import { inferDescriptorFromSolution } from "./descriptor.ts";
import { toHex } from "./hex.ts";
import type { Network } from "./network.ts";
import { lookupPrevout, type Prevout, type PrevoutLookup } from "./prevouts.ts";
import { scriptToAsm } from "./script-asm.ts";
import { type ScriptType, type Solution, solve } from "./solver.ts";
import type { Transaction } from "./transaction.ts";

export interface ScriptPubKeyJson {
  asm: string;
  desc: string;
  hex: string;
  address?: string;
  type: ScriptType;
}

export interface PrevoutJson {
  generated: boolean;
  height: number;
  value: LosslessNumber;
  scriptPubKey: ScriptPubKeyJson;
}

export interface CoinbaseVinJson {
  coinbase: string;
  txinwitness?: string[];
  sequence: number;
}

export interface VinJson {
  txid: string;
  vout: number;
  scriptSig: { asm: string; hex: string };
  txinwitness?: string[];
  prevout?: PrevoutJson;
  sequence: number;
}

export interface VoutJson {
  value: LosslessNumber;
  n: number;
  scriptPubKey: ScriptPubKeyJson;
}

export interface TxJson {
  txid: string;
  hash: string;
  version: number;
  size: number;
  vsize: number;
  weight: number;
  locktime: number;
  vin: (VinJson | CoinbaseVinJson)[];
  vout: VoutJson[];
  fee?: LosslessNumber;
  blockhash?: string;
  hex?: string;
}

/**
 * An output script's parts as Core's ScriptToUniv writes them, each computed on first use and
 * kept: the GraphQL API asks for some of them only (an address without asm or desc), and the
 * address, the costly part, is shared by `address` and `desc`.
 */
export class ScriptPubKeyParts {
  private solution: Solution | undefined;
  private hexText: string | undefined;
  private asmText: string | undefined;
  private descText: string | undefined;
  private addressSolved = false;
  private addressText: string | undefined;

  constructor(
    readonly script: Uint8Array,
    readonly network: Network,
  ) {}

  private get solved(): Solution {
    this.solution ??= solve(this.script);
    return this.solution;
  }

  get type(): ScriptType {
    return this.solved.type;
  }

  get hex(): string {
    this.hexText ??= toHex(this.script);
    return this.hexText;
  }

  get asm(): string {
    this.asmText ??= scriptToAsm(this.script, { hex: this.hex });
    return this.asmText;
  }

  /** Core's ExtractDestination + EncodeDestination; undefined where the script has no address. */
  get address(): string | undefined {
    if (!this.addressSolved) {
      this.addressText = solutionToAddress(this.solved, this.network);
      this.addressSolved = true;
    }
    return this.addressText;
  }

  get desc(): string {
    this.descText ??= inferDescriptorFromSolution(
      this.script,
      this.solved,
      this.network,
      this.hex,
      () => this.address,
    );
    return this.descText;
  }

  /** ScriptToUniv's object: asm, desc, hex, [address], type — in that order. */
  toJson(): ScriptPubKeyJson {
    const { asm, desc, hex, address, type } = this;
    return address === undefined ? { asm, desc, hex, type } : { asm, desc, hex, address, type };
  }
}

/**
 * Core's ScriptToUniv(script, include_hex=true, include_address=true): asm, desc, hex, [address],
 * type — in that order. Bare pubkey scripts never get an address.
 */
export function scriptPubKeyToJson(script: Uint8Array, network: Network): ScriptPubKeyJson {
  return new ScriptPubKeyParts(script, network).toJson();
}

export interface TxToUnivOptions {
  network: Network;
  /**
   * Spent outputs (Core's undo data). When every input's prevout is found and the tx is not a
   * coinbase, the result gets vin[].prevout and fee, as getrawtransaction verbosity 2 does.
   */
  prevouts?: PrevoutLookup;
  /**
   * With prevouts, also write each input's `prevout` (default true). getblock verbosity 2 has
   * undo data but only writes `fee` (Core's SHOW_DETAILS); 3 and getrawtransaction 2 write both.
   */
  prevoutDetails?: boolean;
  /** Add `hex` (default true). */
  includeHex?: boolean;
  /** TxToUniv's block_hash argument: adds `blockhash` before `hex` (getrawtransaction does not). */
  blockhash?: string;
}

function scriptSigJson(script: Uint8Array): { asm: string; hex: string } {
  const hex = toHex(script);
  return { asm: scriptToAsm(script, { sighashDecode: true, hex }), hex };
}

function witnessJson(witness: Uint8Array[]): string[] {
  const out = new Array<string>(witness.length);
  for (let i = 0; i < witness.length; i++) out[i] = toHex(witness[i]!);
  return out;
}

/** Core's TxToUniv (core_write.cpp) with its exact key order. */
export function txToUniv(tx: Transaction, opts: TxToUnivOptions): TxJson {
  const spent = spentOutputs(tx, opts);
  const { vin, totalIn } = inputsJson(tx, spent, opts);
  const { vout, totalOut } = outputsJson(tx, opts.network);
  const result: TxJson = {
    txid: tx.txid,
    hash: tx.wtxid,
    version: tx.version,
    size: tx.size,
    vsize: tx.vsize,
    weight: tx.weight,
    locktime: tx.locktime,
    vin,
    vout,
  };
  if (spent !== null) result.fee = amountToJson(totalIn - totalOut);
  if (opts.blockhash !== undefined) result.blockhash = opts.blockhash;
  if (opts.includeHex ?? true) result.hex = tx.hex;
  return result;
}

/** Undo data is all or nothing in Core: prevouts only when every input has one. */
function spentOutputs(tx: Transaction, opts: TxToUnivOptions): Prevout[] | null {
  if (opts.prevouts === undefined || tx.isCoinbase || tx.inputs.length === 0) return null;
  const spent: Prevout[] = [];
  for (const input of tx.inputs) {
    const p = lookupPrevout(opts.prevouts, input.prevTxid, input.vout);
    if (p === undefined) return null;
    spent.push(p);
  }
  return spent;
}

function inputsJson(
  tx: Transaction,
  spent: Prevout[] | null,
  opts: TxToUnivOptions,
): { vin: (VinJson | CoinbaseVinJson)[]; totalIn: bigint } {
  const vin: (VinJson | CoinbaseVinJson)[] = new Array(tx.inputs.length);
  let totalIn = 0n;
  for (let i = 0; i < tx.inputs.length; i++) {
    const input = tx.inputs[i]!;
    const witness = input.witness.length > 0 ? witnessJson(input.witness) : undefined;
    if (tx.isCoinbase) {
      const hex = toHex(input.scriptSig);
      vin[i] =
        witness === undefined
          ? { coinbase: hex, sequence: input.sequence }
          : { coinbase: hex, txinwitness: witness, sequence: input.sequence };
      continue;
    }
    let prevout: PrevoutJson | undefined;
    const p = spent?.[i];
    if (p !== undefined) {
      totalIn += p.valueSats;
      if (opts.prevoutDetails ?? true) {
        prevout = {
          generated: p.coinbase,
          height: p.height,
          value: amountToJson(p.valueSats),
          scriptPubKey: scriptPubKeyToJson(p.scriptPubKey, opts.network),
        };
      }
    }
    // Spreads keep Core's key order: txinwitness and prevout sit between scriptSig and sequence.
    vin[i] = {
      txid: input.prevTxid,
      vout: input.vout,
      scriptSig: scriptSigJson(input.scriptSig),
      ...(witness === undefined ? {} : { txinwitness: witness }),
      ...(prevout === undefined ? {} : { prevout }),
      sequence: input.sequence,
    };
  }
  return { vin, totalIn };
}

function outputsJson(tx: Transaction, network: Network): { vout: VoutJson[]; totalOut: bigint } {
  const vout = new Array<VoutJson>(tx.outputs.length);
  let totalOut = 0n;
  for (let n = 0; n < tx.outputs.length; n++) {
    const o = tx.outputs[n]!;
    totalOut += o.value;
    vout[n] = {
      value: amountToJson(o.value),
      n,
      scriptPubKey: scriptPubKeyToJson(o.scriptPubKey, network),
    };
  }
  return { vout, totalOut };
}

/** Fee in satoshis when every prevout is known (and the tx is not a coinbase), else undefined. */
export function txFee(tx: Transaction, prevouts: PrevoutLookup): bigint | undefined {
  if (tx.isCoinbase) return undefined;
  let total = 0n;
  for (const input of tx.inputs) {
    const p = lookupPrevout(prevouts, input.prevTxid, input.vout);
    if (p === undefined) return undefined;
    total += p.valueSats;
  }
  for (const o of tx.outputs) total -= o.value;
  return total;
}
