/**
 * mempool's BlockExtended (backend blocks.ts `$getBlockExtended`), in the field order mempool.space
 * answers it: read back from its database (BlocksRepository `formatDbBlockIntoExtendedBlock`),
 * with the database's own types (the median fee stored as an integer, the coinbase signature
 * cut at 500 characters, no coinbase address as `[]`). Built from what the gateway asks its
 * upstreams for a block on the best chain: Esplora's block and coinbase transaction, Core's
 * getblockstats and the header in hex. What needs what the gateway does not run (a mining-pool
 * list, block audits, Core's debug log, coinstatsindex, stale-tip tracking) is answered as
 * mempool's backend answers it with that feature off (decision 0046).
 */

/** The fields of Esplora's `/block/:hash` that BlockExtended keeps. */
export interface EsploraBlock {
  id: string;
  height: number;
  version: number;
  timestamp: number;
  tx_count: number;
  size: number;
  weight: number;
  merkle_root: string;
  previousblockhash?: string | null;
  mediantime: number;
  nonce: number;
  bits: number;
  difficulty: number;
}

/** What BlockExtended reads of the coinbase transaction, as Esplora's `/tx/:txid` gives it. */
export interface EsploraCoinbase {
  vin: { scriptsig?: string }[];
  vout: { value: number; scriptpubkey_address?: string; scriptpubkey_asm?: string }[];
}

/** The getblockstats members BlockExtended reads (Core's names). */
export interface CoreBlockStats {
  feerate_percentiles: number[];
  minfeerate: number;
  maxfeerate: number;
  totalfee: number;
  avgfee: number;
  avgfeerate: number;
  utxo_increase: number;
  total_size: number;
  txs: number;
  ins: number;
  outs: number;
  total_out: number;
  swtxs: number;
  swtotal_size: number;
  swtotal_weight: number;
}

export interface BlockParts {
  block: EsploraBlock;
  coinbase: EsploraCoinbase;
  /** Absent for the genesis block, which mempool does not ask Core about. */
  stats?: CoreBlockStats;
  /** `getblockheader <hash> false`: the 80-byte header in hex. */
  header: string;
}

/** BlocksRepository.version: what a block indexed now is stored with. */
const INDEX_VERSION = 1;
/** poolsParser.unknownPool, as its row in the pools table answers it. */
const UNKNOWN_POOL = { id: 0, name: "Unknown", slug: "unknown", minerNames: null };
/** coinbase_signature and coinbase_signature_ascii are varchar(500). */
const SIGNATURE_MAX = 500;

/** transactionUtils.hex2ascii: each byte as the character of that code. */
function hex2ascii(hex: string): string {
  let out = "";
  for (let i = 0; i < hex.length; i += 2) {
    out += String.fromCharCode(Number.parseInt(hex.slice(i, i + 2), 16));
  }
  return out;
}

/** The fee and size statistics: mempool's fixed values at height 0, else getblockstats'. */
function feeStats(parts: BlockParts) {
  const s = parts.stats;
  if (parts.block.height === 0 || !s) {
    return {
      totalFees: 0,
      medianFee: 0,
      feeRange: [0, 0, 0, 0, 0, 0, 0],
      avgFee: 0,
      avgFeeRate: 0,
      avgTxSize: 0,
      totalInputs: 0,
      totalOutputs: 1,
      totalOutputAmt: 0,
      segwitTotalTxs: 0,
      segwitTotalSize: 0,
      segwitTotalWeight: 0,
      utxoSetChange: 0,
    };
  }
  return {
    totalFees: s.totalfee,
    // median_fee is a BIGINT column: MySQL rounds what it is given.
    medianFee: Math.round(s.feerate_percentiles[2] ?? 0),
    feeRange: [s.minfeerate, ...s.feerate_percentiles, s.maxfeerate],
    avgFee: s.avgfee,
    avgFeeRate: s.avgfeerate,
    avgTxSize: Math.round((s.total_size / s.txs) * 100) * 0.01,
    totalInputs: s.ins,
    totalOutputs: s.outs,
    totalOutputAmt: s.total_out,
    segwitTotalTxs: s.swtxs,
    segwitTotalSize: s.swtotal_size,
    segwitTotalWeight: s.swtotal_weight,
    utxoSetChange: s.utxo_increase,
  };
}

/** What mempool reads of the coinbase: its outputs with a value (stripCoinbaseTransaction). */
function coinbaseFields(coinbase: EsploraCoinbase) {
  const scriptsig = coinbase.vin[0]?.scriptsig ?? "";
  const paid = coinbase.vout.filter((v) => v.value);
  const first = paid[0];
  const addresses = [
    ...new Set(paid.flatMap((v) => (v.scriptpubkey_address ? [v.scriptpubkey_address] : []))),
  ];
  return {
    coinbaseRaw: scriptsig,
    coinbaseAddress: first?.scriptpubkey_address ?? null,
    coinbaseAddresses: addresses,
    coinbaseSignature: first ? (first.scriptpubkey_asm?.slice(0, SIGNATURE_MAX) ?? null) : null,
    coinbaseSignatureAscii: first ? hex2ascii(scriptsig).slice(0, SIGNATURE_MAX) : null,
  };
}

/** One block as mempool.space's `/api/v1/block/:hash` answers it, keys in its order. */
export function blockExtended(parts: BlockParts): Record<string, unknown> {
  const b = parts.block;
  const f = feeStats(parts);
  const c = coinbaseFields(parts.coinbase);
  const extras = {
    totalFees: f.totalFees,
    medianFee: f.medianFee,
    feeRange: f.feeRange,
    reward: parts.coinbase.vout.reduce((sum, v) => sum + v.value, 0),
    pool: { ...UNKNOWN_POOL },
    avgFee: f.avgFee,
    avgFeeRate: f.avgFeeRate,
    ...c,
    avgTxSize: f.avgTxSize,
    totalInputs: f.totalInputs,
    totalOutputs: f.totalOutputs,
    totalOutputAmt: f.totalOutputAmt,
    medianFeeAmt: null,
    feePercentiles: null,
    segwitTotalTxs: f.segwitTotalTxs,
    segwitTotalSize: f.segwitTotalSize,
    segwitTotalWeight: f.segwitTotalWeight,
    header: parts.header,
    utxoSetChange: f.utxoSetChange,
    utxoSetSize: null,
    totalInputAmt: null,
    virtualSize: b.weight / 4,
    firstSeen: null,
    orphans: [],
    matchRate: null,
    expectedFees: null,
    expectedWeight: null,
  };
  return {
    id: b.id,
    height: b.height,
    version: b.version,
    timestamp: b.timestamp,
    bits: b.bits,
    nonce: b.nonce,
    difficulty: b.difficulty,
    merkle_root: b.merkle_root,
    tx_count: b.tx_count,
    size: b.size,
    weight: b.weight,
    previousblockhash: b.previousblockhash ?? null,
    mediantime: b.mediantime,
    indexVersion: INDEX_VERSION,
    // The stale column is a MySQL BOOL, read back as a number.
    stale: 0,
    extras,
  };
}
