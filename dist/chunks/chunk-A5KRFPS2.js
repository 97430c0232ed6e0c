// Built by `npm run build` from src/ (scripts/build.mjs); do not edit.

// src/jsonrpc/json.ts
import { isLosslessNumber as isLosslessNumber2, LosslessNumber, parse as parse2 } from "lossless-json";

// src/bitcoin/json-text.ts
import { isLosslessNumber, parse, stringify } from "lossless-json";
var MARK = "";
var MARKED = /"\\u0001(-?[0-9][0-9.eE+-]*)"/g;
var RAW = /"\\u0001R(\d+)"/g;
var RawJsonText = class {
  constructor(text) {
    this.text = text;
  }
  text;
};
var Collision = class extends Error {
};
function replacerWith(raws) {
  return (key, value) => {
    if (typeof value === "string") {
      if (value.includes(MARK)) throw new Collision();
      return value;
    }
    if (key.includes(MARK)) throw new Collision();
    if (isLosslessNumber(value)) return MARK + value.toString();
    if (value instanceof RawJsonText) {
      raws.push(value.text);
      return `${MARK}R${raws.length - 1}`;
    }
    return value;
  };
}
function withoutRaw(value) {
  if (value instanceof RawJsonText) return parse(value.text);
  if (Array.isArray(value)) return value.map(withoutRaw);
  if (typeof value === "object" && value !== null && !isLosslessNumber(value)) {
    const out = {};
    for (const [k, v] of Object.entries(value)) out[k] = withoutRaw(v);
    return out;
  }
  return value;
}
function toJsonText(value) {
  const raws = [];
  try {
    const text = JSON.stringify(value, replacerWith(raws));
    if (text === void 0) return "";
    const numbers = text.replace(MARKED, "$1");
    return raws.length === 0 ? numbers : numbers.replace(RAW, (_, i) => raws[Number(i)]);
  } catch (e) {
    if (!(e instanceof Collision)) throw e;
    return stringify(withoutRaw(value)) ?? "";
  }
}

// src/jsonrpc/json.ts
function parseJson(text) {
  return parse2(text);
}
function stringifyJson(value) {
  if (value === void 0) throw new TypeError("value has no JSON form");
  return toJsonText(value);
}
function allPlainScalars(values) {
  for (const v of values) {
    if (v !== null && typeof v !== "string" && typeof v !== "boolean") {
      if (typeof v !== "number" || !Number.isFinite(v)) return false;
    }
  }
  return true;
}
function isJsonNumber(value) {
  return isLosslessNumber2(value);
}
function jsonInteger(value) {
  if (!isJsonNumber(value)) return void 0;
  return /^-?\d+$/.test(value.value) ? Number(value.value) : void 0;
}
function isJsonObject(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !isJsonNumber(value) && !(value instanceof RawJsonText);
}
function jsonNumber(value) {
  return new LosslessNumber(String(value));
}

// src/bitcoin/errors.ts
var DecodeError = class extends Error {
  name = "DecodeError";
  offset;
  constructor(message, offset = -1) {
    super(offset >= 0 ? `${message} (at byte ${offset})` : message);
    this.offset = offset;
  }
};

// src/bitcoin/hash.ts
import { createHash, hash } from "node:crypto";
function sha256Once(data) {
  return hash("sha256", data, "buffer");
}
function sha256(...parts) {
  if (parts.length === 1) return sha256Once(parts[0]);
  const h = createHash("sha256");
  for (const p of parts) h.update(p);
  return h.digest();
}
function sha256d(...parts) {
  return sha256Once(sha256(...parts));
}
function hash160(data) {
  return hash("ripemd160", sha256Once(data), "buffer");
}

// src/bitcoin/hex.ts
function view(bytes) {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
function toHex(bytes) {
  return view(bytes).toString("hex");
}
function toHexReversed(bytes) {
  const copy = Buffer.allocUnsafe(bytes.length);
  for (let i = 0, j = bytes.length - 1; j >= 0; i++, j--) copy[i] = bytes[j];
  return copy.toString("hex");
}
function fromHex(hex) {
  const buf = Buffer.from(hex, "hex");
  if (buf.byteLength * 2 !== hex.length) throw new DecodeError("invalid hex string");
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
}
function fromHexReversed(hex) {
  return fromHex(hex).reverse();
}

// src/bitcoin/reader.ts
var MAX_COMPACT_SIZE = 33554432;
var ByteReader = class {
  bytes;
  dv;
  pos;
  constructor(bytes, pos = 0) {
    this.bytes = bytes;
    this.dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.pos = pos;
  }
  get remaining() {
    return this.bytes.length - this.pos;
  }
  need(n, what) {
    if (this.bytes.length - this.pos < n) {
      throw new DecodeError(`unexpected end of data reading ${what}`, this.pos);
    }
  }
  u8() {
    this.need(1, "u8");
    return this.bytes[this.pos++];
  }
  u16() {
    this.need(2, "u16");
    const v = this.dv.getUint16(this.pos, true);
    this.pos += 2;
    return v;
  }
  u32() {
    this.need(4, "u32");
    const v = this.dv.getUint32(this.pos, true);
    this.pos += 4;
    return v;
  }
  i32() {
    this.need(4, "i32");
    const v = this.dv.getInt32(this.pos, true);
    this.pos += 4;
    return v;
  }
  i64() {
    this.need(8, "i64");
    const v = this.dv.getBigInt64(this.pos, true);
    this.pos += 8;
    return v;
  }
  /** A view (no copy) of the next n bytes. */
  bytesView(n, what = "bytes") {
    this.need(n, what);
    const out = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
  /**
   * Core's ReadCompactSize with range_check: the shortest encoding is mandatory
   * ("non-canonical ReadCompactSize()") and values above MAX_SIZE are refused.
   */
  compactSize(what = "compact size") {
    const start = this.pos;
    const first = this.u8();
    let v;
    if (first < 253) {
      v = first;
    } else if (first === 253) {
      v = this.u16();
      if (v < 253) throw new DecodeError(`non-canonical compact size for ${what}`, start);
    } else if (first === 254) {
      v = this.u32();
      if (v < 65536) throw new DecodeError(`non-canonical compact size for ${what}`, start);
    } else {
      this.need(8, what);
      const big = this.dv.getBigUint64(this.pos, true);
      this.pos += 8;
      if (big < 0x100000000n)
        throw new DecodeError(`non-canonical compact size for ${what}`, start);
      throw new DecodeError(`compact size too large for ${what}`, start);
    }
    if (v > MAX_COMPACT_SIZE) throw new DecodeError(`compact size too large for ${what}`, start);
    return v;
  }
  /**
   * A count of items that each take at least `minItemBytes`: refusing counts that could not fit in
   * the bytes left keeps a 5-byte header from making us allocate or loop for millions of items.
   */
  count(minItemBytes, what) {
    const start = this.pos;
    const n = this.compactSize(what);
    if (n * minItemBytes > this.remaining) {
      throw new DecodeError(
        `${what} count ${n} exceeds the remaining ${this.remaining} bytes`,
        start
      );
    }
    return n;
  }
  /** compact-size length followed by that many bytes (a script or a witness item). */
  varBytes(what) {
    return this.bytesView(this.varLength(what), what);
  }
  /** Passes over what varBytes would read, with the same checks, without making a view. */
  skipVarBytes(what) {
    const n = this.varLength(what);
    this.pos += n;
  }
  varLength(what) {
    const start = this.pos;
    const n = this.compactSize(what);
    if (n > this.remaining) {
      throw new DecodeError(
        `${what} length ${n} exceeds the remaining ${this.remaining} bytes`,
        start
      );
    }
    return n;
  }
};
function compactSizeLength(n) {
  return n < 253 ? 1 : n <= 65535 ? 3 : n <= 4294967295 ? 5 : 9;
}

// src/bitcoin/script-ops.ts
var OP_0 = 0;
var OP_PUSHDATA1 = 76;
var OP_PUSHDATA2 = 77;
var OP_PUSHDATA4 = 78;
var OP_1 = 81;
var OP_16 = 96;
var OP_RETURN = 106;
var OP_DUP = 118;
var OP_EQUAL = 135;
var OP_EQUALVERIFY = 136;
var OP_HASH160 = 169;
var OP_CHECKSIG = 172;
var OP_CHECKMULTISIG = 174;
var OP_CHECKSIGADD = 186;
var MAX_OPCODE = 185;
var MAX_SCRIPT_SIZE = 1e4;
function readOp(script, pc) {
  const len = script.length;
  if (pc >= len) return null;
  const opcode = script[pc++];
  if (opcode > OP_PUSHDATA4) return { opcode, data: null, end: pc };
  let size;
  if (opcode < OP_PUSHDATA1) {
    size = opcode;
  } else if (opcode === OP_PUSHDATA1) {
    if (len - pc < 1) return null;
    size = script[pc];
    pc += 1;
  } else if (opcode === OP_PUSHDATA2) {
    if (len - pc < 2) return null;
    size = script[pc] | script[pc + 1] << 8;
    pc += 2;
  } else {
    if (len - pc < 4) return null;
    size = (script[pc] | script[pc + 1] << 8 | script[pc + 2] << 16) + script[pc + 3] * 16777216;
    pc += 4;
  }
  if (len - pc < size) return null;
  return { opcode, data: script.subarray(pc, pc + size), end: pc + size };
}
function hasValidOps(script) {
  let pc = 0;
  while (pc < script.length) {
    const op = readOp(script, pc);
    if (op === null || op.opcode > MAX_OPCODE) return false;
    pc = op.end;
  }
  return true;
}
function isPushOnly(script) {
  let pc = 0;
  while (pc < script.length) {
    const op = readOp(script, pc);
    if (op === null || op.opcode > OP_16) return false;
    pc = op.end;
  }
  return true;
}

// src/bitcoin/transaction.ts
var Transaction = class {
  version;
  locktime;
  inputs;
  outputs;
  bytes;
  /** Serialized in the BIP144 extended form (marker, flag, witnesses). */
  hasWitness;
  /** Size without witness data (what the txid commits to). */
  strippedSize;
  layout;
  cachedTxid;
  cachedWtxid;
  /** The txid as text: a decoded transaction is shared (cache/parsed-txs.ts) and asked it often. */
  cachedTxidText;
  constructor(fields, bytes, layout) {
    this.version = fields.version;
    this.locktime = fields.locktime;
    this.inputs = fields.inputs;
    this.outputs = fields.outputs;
    this.hasWitness = fields.hasWitness;
    this.bytes = bytes;
    this.layout = layout;
    this.strippedSize = fields.hasWitness ? 4 + (layout.bodyEnd - layout.bodyStart) + 4 : bytes.length;
  }
  get size() {
    return this.bytes.length;
  }
  /** BIP141 weight: stripped size × 3 + total size. */
  get weight() {
    return this.strippedSize * 3 + this.bytes.length;
  }
  /** Core's GetVirtualTransactionSize without the sigop term: ceil(weight / 4). */
  get vsize() {
    return Math.ceil(this.weight / 4);
  }
  /** txid in wire byte order (hash of the serialization without witness). */
  get txidBytes() {
    if (this.cachedTxid === void 0) {
      const b = this.bytes;
      this.cachedTxid = this.hasWitness ? sha256d(
        b.subarray(0, 4),
        b.subarray(this.layout.bodyStart, this.layout.bodyEnd),
        b.subarray(b.length - 4)
      ) : sha256d(b);
    }
    return this.cachedTxid;
  }
  /** wtxid in wire byte order; equals the txid for a transaction without witness. */
  get wtxidBytes() {
    if (this.cachedWtxid === void 0) {
      this.cachedWtxid = this.hasWitness ? sha256d(this.bytes) : this.txidBytes;
    }
    return this.cachedWtxid;
  }
  get txid() {
    this.cachedTxidText ??= toHexReversed(this.txidBytes);
    return this.cachedTxidText;
  }
  get wtxid() {
    return toHexReversed(this.wtxidBytes);
  }
  get hex() {
    return toHex(this.bytes);
  }
  /** Core's CTransaction::IsCoinBase: one input spending the null outpoint. */
  get isCoinbase() {
    if (this.inputs.length !== 1) return false;
    const input = this.inputs[0];
    return input.vout === 4294967295 && input.prevTxidBytes.every((b) => b === 0);
  }
};
var MIN_INPUT_BYTES = 32 + 4 + 1 + 4;
var MIN_OUTPUT_BYTES = 8 + 1;
function readInputs(r) {
  const n = r.count(MIN_INPUT_BYTES, "input");
  const inputs = new Array(n);
  for (let i = 0; i < n; i++) {
    const prevTxidBytes = r.bytesView(32, "prevout hash");
    const vout = r.u32();
    const scriptSig = r.varBytes("scriptSig");
    const sequence = r.u32();
    inputs[i] = {
      prevTxid: toHexReversed(prevTxidBytes),
      prevTxidBytes,
      vout,
      scriptSig,
      sequence,
      witness: []
    };
  }
  return inputs;
}
function readOutputs(r) {
  const n = r.count(MIN_OUTPUT_BYTES, "output");
  const outputs = new Array(n);
  for (let i = 0; i < n; i++) {
    const value = r.i64();
    outputs[i] = { value, scriptPubKey: r.varBytes("scriptPubKey") };
  }
  return outputs;
}
var LAZY_WITNESS_ITEMS = 1e3;
function lazyWitness(input, r, n) {
  const bytes = r.bytes;
  const start = r.pos;
  for (let i = 0; i < n; i++) r.skipVarBytes("witness item");
  let items;
  Object.defineProperty(input, "witness", {
    enumerable: true,
    get() {
      if (!items) {
        const again = new ByteReader(bytes, start);
        items = [];
        for (let i = 0; i < n; i++) items.push(again.varBytes("witness item"));
      }
      return items;
    }
  });
}
function readTransaction(r, allowWitness) {
  const start = r.pos;
  const version = r.u32();
  let bodyStart = r.pos;
  let inputs = readInputs(r);
  let outputs = [];
  let flags = 0;
  if (inputs.length === 0 && allowWitness) {
    flags = r.u8();
    if (flags !== 0) {
      bodyStart = r.pos;
      inputs = readInputs(r);
      outputs = readOutputs(r);
    }
  } else {
    outputs = readOutputs(r);
  }
  const bodyEnd = r.pos;
  let hasWitness = false;
  if (flags & 1 && allowWitness) {
    flags ^= 1;
    for (const input of inputs) {
      const n = r.count(1, "witness item");
      if (n > LAZY_WITNESS_ITEMS) lazyWitness(input, r, n);
      else for (let i = 0; i < n; i++) input.witness.push(r.varBytes("witness item"));
      if (n > 0) hasWitness = true;
    }
    if (!hasWitness) throw new DecodeError("superfluous witness record", r.pos);
  }
  if (flags !== 0) throw new DecodeError("unknown transaction optional data", r.pos);
  const locktime = r.u32();
  const bytes = r.bytes.subarray(start, r.pos);
  return new Transaction({ version, locktime, inputs, outputs, hasWitness }, bytes, {
    bodyStart: bodyStart - start,
    bodyEnd: bodyEnd - start
  });
}
function scriptsSane(tx) {
  if (!tx.isCoinbase) {
    for (const input of tx.inputs) {
      if (input.scriptSig.length > MAX_SCRIPT_SIZE || !hasValidOps(input.scriptSig)) return false;
    }
  }
  for (const output of tx.outputs) {
    if (output.scriptPubKey.length > MAX_SCRIPT_SIZE || !hasValidOps(output.scriptPubKey)) {
      return false;
    }
  }
  return true;
}
function tryRead(bytes, allowWitness) {
  try {
    const r = new ByteReader(bytes);
    const tx = readTransaction(r, allowWitness);
    if (r.remaining !== 0) return new DecodeError(`${r.remaining} trailing bytes`, r.pos);
    return tx;
  } catch (e) {
    if (e instanceof DecodeError) return e;
    throw e;
  }
}
function parseTransaction(bytes) {
  const extended = tryRead(bytes, true);
  if (extended instanceof Transaction && scriptsSane(extended)) return extended;
  const legacy = tryRead(bytes, false);
  if (legacy instanceof Transaction && scriptsSane(legacy)) return legacy;
  if (extended instanceof Transaction) return extended;
  if (legacy instanceof Transaction) return legacy;
  throw new DecodeError(`TX decode failed: ${extended.message}`, extended.offset);
}

// src/bitcoin/merkle.ts
function computeMerkleRoot(hashes) {
  if (hashes.length === 0) return new Uint8Array(32);
  let level = hashes.slice();
  while (level.length > 1) {
    const next = [];
    for (let i = 0; i < level.length; i += 2) {
      const left = level[i];
      const right = level[i + 1] ?? left;
      next.push(sha256d(left, right));
    }
    level = next;
  }
  return level[0];
}

// src/bitcoin/block.ts
var BLOCK_HEADER_SIZE = 80;
function readHeader(r) {
  const headerBytes = r.bytesView(BLOCK_HEADER_SIZE, "block header");
  const h = new ByteReader(headerBytes);
  const version = h.i32();
  const prev = h.bytesView(32);
  const merklerootBytes = h.bytesView(32);
  const time = h.u32();
  const bits = h.u32();
  const nonce = h.u32();
  const hashBytes = sha256d(headerBytes);
  return {
    hash: toHexReversed(hashBytes),
    hashBytes,
    version,
    previousblockhash: toHexReversed(prev),
    merkleroot: toHexReversed(merklerootBytes),
    merklerootBytes,
    time,
    bits: bits.toString(16).padStart(8, "0"),
    nonce,
    headerBytes
  };
}
function parseBlockHeader(bytes) {
  if (bytes.length !== BLOCK_HEADER_SIZE) {
    throw new DecodeError(`block header must be 80 bytes, got ${bytes.length}`);
  }
  return readHeader(new ByteReader(bytes));
}
var MIN_TX_BYTES = 10;
function parseBlock(bytes) {
  const r = new ByteReader(bytes);
  const header = readHeader(r);
  const n = r.count(MIN_TX_BYTES, "transaction");
  const transactions = new Array(n);
  let strippedsize = BLOCK_HEADER_SIZE + compactSizeLength(n);
  for (let i = 0; i < n; i++) {
    const tx = readTransaction(r, true);
    transactions[i] = tx;
    strippedsize += tx.strippedSize;
  }
  if (r.remaining !== 0) throw new DecodeError(`${r.remaining} trailing bytes after block`, r.pos);
  return {
    ...header,
    transactions,
    size: bytes.length,
    strippedsize,
    weight: strippedsize * 3 + bytes.length,
    bytes
  };
}
function blockMerkleRoot(block) {
  return computeMerkleRoot(block.transactions.map((tx) => tx.txidBytes));
}
function checkMerkleRoot(block) {
  return Buffer.from(blockMerkleRoot(block)).equals(block.merklerootBytes);
}

// src/bitcoin/address.ts
import { bech32, bech32m, createBase58check } from "@scure/base";

// src/bitcoin/network.ts
var NETWORKS = {
  mainnet: { pubkeyHash: 0, scriptHash: 5, bech32Hrp: "bc" },
  testnet: { pubkeyHash: 111, scriptHash: 196, bech32Hrp: "tb" },
  testnet4: { pubkeyHash: 111, scriptHash: 196, bech32Hrp: "tb" },
  signet: { pubkeyHash: 111, scriptHash: 196, bech32Hrp: "tb" },
  regtest: { pubkeyHash: 111, scriptHash: 196, bech32Hrp: "bcrt" }
};

// src/bitcoin/solver.ts
var MAX_PUBKEYS_PER_MULTISIG = 20;
function pubkeyValidSize(key) {
  if (key.length === 0) return false;
  const h = key[0];
  if (h === 2 || h === 3) return key.length === 33;
  if (h === 4 || h === 6 || h === 7) return key.length === 65;
  return false;
}
function isP2SH(s) {
  return s.length === 23 && s[0] === OP_HASH160 && s[1] === 20 && s[22] === OP_EQUAL;
}
function witnessProgram(s) {
  if (s.length < 4 || s.length > 42) return null;
  const v = s[0];
  if (v !== OP_0 && (v < OP_1 || v > OP_16)) return null;
  if (s[1] + 2 !== s.length) return null;
  return { version: v === OP_0 ? 0 : v - (OP_1 - 1), program: s.subarray(2) };
}
function isPayToAnchor(s) {
  return s.length === 4 && s[0] === OP_1 && s[1] === 2 && s[2] === 78 && s[3] === 115;
}
function checkMinimalPush(data, opcode) {
  const n = data.length;
  if (n === 0) return opcode === OP_0;
  if (n === 1 && data[0] >= 1 && data[0] <= 16) return false;
  if (n === 1 && data[0] === 129) return false;
  if (n <= 75) return opcode === n;
  if (n <= 255) return opcode === OP_PUSHDATA1;
  if (n <= 65535) return opcode === OP_PUSHDATA2;
  return true;
}
function minimalScriptNum(data) {
  const n = data.length;
  if (n > 4) return null;
  if (n === 0) return 0;
  if ((data[n - 1] & 127) === 0 && (n <= 1 || (data[n - 2] & 128) === 0)) return null;
  let v = 0;
  for (let i = 0; i < n; i++) v += data[i] * 2 ** (8 * i);
  if (data[n - 1] & 128) return -(v - 128 * 2 ** (8 * (n - 1)));
  return v;
}
function scriptNumber(opcode, data, min, max) {
  let count;
  if (opcode >= OP_1 && opcode <= OP_16) {
    count = opcode - (OP_1 - 1);
  } else if (opcode > OP_0 && opcode <= OP_PUSHDATA4 && data !== null) {
    if (!checkMinimalPush(data, opcode)) return null;
    const v = minimalScriptNum(data);
    if (v === null) return null;
    count = v;
  } else {
    return null;
  }
  return count < min || count > max ? null : count;
}
function matchMultisig(s) {
  if (s.length < 1 || s[s.length - 1] !== OP_CHECKMULTISIG) return null;
  let op = readOp(s, 0);
  if (op === null) return null;
  const required = scriptNumber(op.opcode, op.data, 1, MAX_PUBKEYS_PER_MULTISIG);
  if (required === null) return null;
  const pubkeys = [];
  let pc = op.end;
  for (; ; ) {
    op = readOp(s, pc);
    if (op === null) return null;
    if (op.data === null || !pubkeyValidSize(op.data)) break;
    pubkeys.push(op.data);
    pc = op.end;
  }
  const n = scriptNumber(op.opcode, op.data, required, MAX_PUBKEYS_PER_MULTISIG);
  if (n === null || pubkeys.length !== n) return null;
  return op.end + 1 === s.length ? { required, pubkeys } : null;
}
function solve(s) {
  if (isP2SH(s)) return { type: "scripthash", hash: s.subarray(2, 22) };
  const wp = witnessProgram(s);
  if (wp !== null) {
    if (wp.version === 0 && wp.program.length === 20) {
      return { type: "witness_v0_keyhash", hash: wp.program };
    }
    if (wp.version === 0 && wp.program.length === 32) {
      return { type: "witness_v0_scripthash", hash: wp.program };
    }
    if (wp.version === 1 && wp.program.length === 32) {
      return { type: "witness_v1_taproot", program: wp.program };
    }
    if (isPayToAnchor(s)) return { type: "anchor" };
    if (wp.version !== 0) return { type: "witness_unknown", ...wp };
    return { type: "nonstandard" };
  }
  if (s.length >= 1 && s[0] === OP_RETURN && isPushOnly(s.subarray(1))) return { type: "nulldata" };
  const keyLen = s.length - 2;
  if ((keyLen === 33 || keyLen === 65) && s[0] === keyLen && s[s.length - 1] === OP_CHECKSIG) {
    const key = s.subarray(1, s.length - 1);
    if (pubkeyValidSize(key)) return { type: "pubkey", pubkey: key };
  }
  if (s.length === 25 && s[0] === OP_DUP && s[1] === OP_HASH160 && s[2] === 20 && s[23] === OP_EQUALVERIFY && s[24] === OP_CHECKSIG) {
    return { type: "pubkeyhash", hash: s.subarray(3, 23) };
  }
  const ms = matchMultisig(s);
  if (ms !== null) return { type: "multisig", ...ms };
  return { type: "nonstandard" };
}

// src/bitcoin/address.ts
var base58check = createBase58check(sha256);
function encodeBase58Address(version, hash2) {
  const payload = new Uint8Array(1 + hash2.length);
  payload[0] = version;
  payload.set(hash2, 1);
  return base58check.encode(payload);
}
function encodeSegwitAddress(hrp, version, program) {
  const words = [version, ...bech32.toWords(program)];
  return version === 0 ? bech32.encode(hrp, words) : bech32m.encode(hrp, words);
}
function solutionToAddress(sol, network) {
  const p = NETWORKS[network];
  switch (sol.type) {
    case "pubkeyhash":
      return encodeBase58Address(p.pubkeyHash, sol.hash);
    case "scripthash":
      return encodeBase58Address(p.scriptHash, sol.hash);
    case "witness_v0_keyhash":
    case "witness_v0_scripthash":
      return encodeSegwitAddress(p.bech32Hrp, 0, sol.hash);
    case "witness_v1_taproot":
      return encodeSegwitAddress(p.bech32Hrp, 1, sol.program);
    case "witness_unknown":
      return encodeSegwitAddress(p.bech32Hrp, sol.version, sol.program);
    case "anchor":
      return encodeSegwitAddress(p.bech32Hrp, 1, Uint8Array.of(78, 115));
    default:
      return void 0;
  }
}
function concat(...parts) {
  const len = parts.reduce((n, p) => n + (typeof p === "number" ? 1 : p.length), 0);
  const out = new Uint8Array(len);
  let i = 0;
  for (const p of parts) {
    if (typeof p === "number") out[i++] = p;
    else {
      out.set(p, i);
      i += p.length;
    }
  }
  return out;
}
function decodeSegwit(address, hrp) {
  const lower = address.toLowerCase();
  if (!lower.startsWith(`${hrp}1`)) return null;
  for (const [coder, encoding] of [
    [bech32, "bech32"],
    [bech32m, "bech32m"]
  ]) {
    let decoded;
    try {
      decoded = coder.decode(address, 90);
    } catch {
      continue;
    }
    if (decoded.prefix !== hrp || decoded.words.length === 0) return null;
    const version = decoded.words[0];
    if (version > 16) return null;
    if (version === 0 !== (encoding === "bech32")) return null;
    let program;
    try {
      program = Uint8Array.from(bech32.fromWords(decoded.words.slice(1)));
    } catch {
      return null;
    }
    if (program.length < 2 || program.length > 40) return null;
    if (version === 0 && program.length !== 20 && program.length !== 32) return null;
    return concat(version === 0 ? OP_0 : OP_1 + version - 1, program.length, program);
  }
  return null;
}
function addressToScript(address, network) {
  const p = NETWORKS[network];
  const segwit = decodeSegwit(address, p.bech32Hrp);
  if (segwit !== null) return segwit;
  let payload;
  try {
    payload = base58check.decode(address);
  } catch {
    return null;
  }
  if (payload.length !== 21) return null;
  const hash2 = payload.subarray(1);
  if (payload[0] === p.pubkeyHash) {
    return concat(OP_DUP, OP_HASH160, 20, hash2, OP_EQUALVERIFY, OP_CHECKSIG);
  }
  if (payload[0] === p.scriptHash) return concat(OP_HASH160, 20, hash2, OP_EQUAL);
  return null;
}

// src/bitcoin/amount.ts
import { LosslessNumber as LosslessNumber2 } from "lossless-json";
var COIN = 100000000n;
function formatAmount(sats) {
  const neg = sats < 0n;
  const abs = neg ? -sats : sats;
  const frac = (abs % COIN).toString().padStart(8, "0");
  return `${neg ? "-" : ""}${abs / COIN}.${frac}`;
}
function amountToJson(sats) {
  return new LosslessNumber2(formatAmount(sats));
}
function parseAmount(text) {
  const m = /^(-)?(\d+)(?:\.(\d{1,8}))?$/.exec(text);
  if (m === null) throw new Error(`not an amount: ${text}`);
  const sats = BigInt(m[2]) * COIN + BigInt((m[3] ?? "").padEnd(8, "0"));
  return m[1] ? -sats : sats;
}

// src/bitcoin/xonly.ts
var P = 2n ** 256n - 2n ** 32n - 977n;
function modPow(base, exp, mod) {
  let result = 1n;
  let b = base % mod;
  let e = exp;
  while (e > 0n) {
    if (e & 1n) result = result * b % mod;
    b = b * b % mod;
    e >>= 1n;
  }
  return result;
}
function isValidXOnlyPubkey(x32) {
  if (x32.length !== 32) return false;
  const x = BigInt(`0x${Buffer.from(x32.buffer, x32.byteOffset, 32).toString("hex")}`);
  if (x >= P) return false;
  const c = (x * x * x + 7n) % P;
  return modPow(c, (P - 1n) / 2n, P) === 1n;
}

// src/bitcoin/descriptor.ts
var INPUT_CHARSET = "0123456789()[],'/*abcdefgh@:$%{}IJKLMNOPQRSTUVWXYZ&+-.;<=>?!^_|~ijklmnopqrstuvwxyzABCDEFGH`#\"\\ ";
var CHECKSUM_CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";
var INPUT_POS = new Int16Array(128).fill(-1);
for (let i = 0; i < INPUT_CHARSET.length; i++) INPUT_POS[INPUT_CHARSET.charCodeAt(i)] = i;
var GENERATORS = [
  [1007086, 334217],
  [696284, 668434],
  [113329, 58157],
  [225387, 92026],
  [410838, 159741]
];
var GEN_HI = new Int32Array(32);
var GEN_LO = new Int32Array(32);
for (let c0 = 0; c0 < 32; c0++) {
  for (let i = 0; i < 5; i++) {
    if (c0 >> i & 1) {
      GEN_HI[c0] ^= GENERATORS[i][0];
      GEN_LO[c0] ^= GENERATORS[i][1];
    }
  }
}
var symbols = new Uint8Array(512);
function descriptorChecksum(desc) {
  const n = desc.length;
  const needed = n + Math.ceil(n / 3) + 8;
  if (symbols.length < needed) symbols = new Uint8Array(needed * 2);
  const sym = symbols;
  let k = 0;
  let cls = 0;
  let clscount = 0;
  for (let i = 0; i < n; i++) {
    const code = desc.charCodeAt(i);
    const pos = code < 128 ? INPUT_POS[code] : -1;
    if (pos < 0) return "";
    sym[k++] = pos & 31;
    cls = cls * 3 + (pos >> 5);
    if (++clscount === 3) {
      sym[k++] = cls;
      cls = 0;
      clscount = 0;
    }
  }
  if (clscount > 0) sym[k++] = cls;
  for (let j = 0; j < 8; j++) sym[k++] = 0;
  let hi = 0;
  let lo = 1;
  for (let i = 0; i < k; i++) {
    const c0 = hi >> 15;
    hi = ((hi & 32767) << 5 | lo >> 15) ^ GEN_HI[c0];
    lo = ((lo & 32767) << 5 | sym[i]) ^ GEN_LO[c0];
  }
  lo ^= 1;
  const c = hi * 2 ** 20 + lo;
  let out = "";
  for (let j = 0; j < 8; j++) out += CHECKSUM_CHARSET[Math.floor(c / 2 ** (5 * (7 - j))) % 32];
  return out;
}
function addChecksum(desc) {
  return `${desc}#${descriptorChecksum(desc)}`;
}
function nonHybrid(key) {
  return key[0] === 2 || key[0] === 3 || key[0] === 4;
}
function inferDescriptorFromSolution(script, sol, network, scriptHex, address = () => solutionToAddress(sol, network)) {
  switch (sol.type) {
    case "pubkey":
      if (nonHybrid(sol.pubkey)) return addChecksum(`pk(${toHex(sol.pubkey)})`);
      break;
    case "multisig":
      if (sol.pubkeys.every(nonHybrid)) {
        return addChecksum(`multi(${sol.required},${sol.pubkeys.map(toHex).join(",")})`);
      }
      break;
    case "witness_v1_taproot":
      if (isValidXOnlyPubkey(sol.program)) return addChecksum(`rawtr(${toHex(sol.program)})`);
      break;
  }
  const addr = address();
  if (addr !== void 0) return addChecksum(`addr(${addr})`);
  return addChecksum(`raw(${scriptHex ?? toHex(script)})`);
}

// src/bitcoin/prevouts.ts
import { readFileSync } from "node:fs";
function outpointKey(txid, vout) {
  return `${txid}:${vout}`;
}
function lookupPrevout(lookup, txid, vout) {
  return typeof lookup === "function" ? lookup(txid, vout) : lookup.get(outpointKey(txid, vout));
}
function parsePrevoutsJson(text) {
  const safe = text.replace(/("value_sat"\s*:\s*)(-?\d+)/g, '$1"$2"');
  const doc = JSON.parse(safe);
  const out = /* @__PURE__ */ new Map();
  for (const [key, p] of Object.entries(doc.prevouts)) {
    out.set(key, {
      valueSats: BigInt(p.value_sat),
      scriptPubKey: fromHex(p.scriptPubKey),
      height: p.height,
      coinbase: p.coinbase
    });
  }
  return out;
}
function loadPrevoutsFile(path) {
  return parsePrevoutsJson(readFileSync(path, "utf8"));
}

// src/bitcoin/opcode-names.ts
var NAMES = /* @__PURE__ */ new Map([
  [0, "0"],
  [76, "OP_PUSHDATA1"],
  [77, "OP_PUSHDATA2"],
  [78, "OP_PUSHDATA4"],
  [79, "-1"],
  [80, "OP_RESERVED"],
  [97, "OP_NOP"],
  [98, "OP_VER"],
  [99, "OP_IF"],
  [100, "OP_NOTIF"],
  [101, "OP_VERIF"],
  [102, "OP_VERNOTIF"],
  [103, "OP_ELSE"],
  [104, "OP_ENDIF"],
  [105, "OP_VERIFY"],
  [106, "OP_RETURN"],
  [107, "OP_TOALTSTACK"],
  [108, "OP_FROMALTSTACK"],
  [109, "OP_2DROP"],
  [110, "OP_2DUP"],
  [111, "OP_3DUP"],
  [112, "OP_2OVER"],
  [113, "OP_2ROT"],
  [114, "OP_2SWAP"],
  [115, "OP_IFDUP"],
  [116, "OP_DEPTH"],
  [117, "OP_DROP"],
  [118, "OP_DUP"],
  [119, "OP_NIP"],
  [120, "OP_OVER"],
  [121, "OP_PICK"],
  [122, "OP_ROLL"],
  [123, "OP_ROT"],
  [124, "OP_SWAP"],
  [125, "OP_TUCK"],
  [126, "OP_CAT"],
  [127, "OP_SUBSTR"],
  [128, "OP_LEFT"],
  [129, "OP_RIGHT"],
  [130, "OP_SIZE"],
  [131, "OP_INVERT"],
  [132, "OP_AND"],
  [133, "OP_OR"],
  [134, "OP_XOR"],
  [135, "OP_EQUAL"],
  [136, "OP_EQUALVERIFY"],
  [137, "OP_RESERVED1"],
  [138, "OP_RESERVED2"],
  [139, "OP_1ADD"],
  [140, "OP_1SUB"],
  [141, "OP_2MUL"],
  [142, "OP_2DIV"],
  [143, "OP_NEGATE"],
  [144, "OP_ABS"],
  [145, "OP_NOT"],
  [146, "OP_0NOTEQUAL"],
  [147, "OP_ADD"],
  [148, "OP_SUB"],
  [149, "OP_MUL"],
  [150, "OP_DIV"],
  [151, "OP_MOD"],
  [152, "OP_LSHIFT"],
  [153, "OP_RSHIFT"],
  [154, "OP_BOOLAND"],
  [155, "OP_BOOLOR"],
  [156, "OP_NUMEQUAL"],
  [157, "OP_NUMEQUALVERIFY"],
  [158, "OP_NUMNOTEQUAL"],
  [159, "OP_LESSTHAN"],
  [160, "OP_GREATERTHAN"],
  [161, "OP_LESSTHANOREQUAL"],
  [162, "OP_GREATERTHANOREQUAL"],
  [163, "OP_MIN"],
  [164, "OP_MAX"],
  [165, "OP_WITHIN"],
  [166, "OP_RIPEMD160"],
  [167, "OP_SHA1"],
  [168, "OP_SHA256"],
  [169, "OP_HASH160"],
  [170, "OP_HASH256"],
  [171, "OP_CODESEPARATOR"],
  [172, "OP_CHECKSIG"],
  [173, "OP_CHECKSIGVERIFY"],
  [174, "OP_CHECKMULTISIG"],
  [175, "OP_CHECKMULTISIGVERIFY"],
  [176, "OP_NOP1"],
  [177, "OP_CHECKLOCKTIMEVERIFY"],
  [178, "OP_CHECKSEQUENCEVERIFY"],
  [179, "OP_NOP4"],
  [180, "OP_NOP5"],
  [181, "OP_NOP6"],
  [182, "OP_NOP7"],
  [183, "OP_NOP8"],
  [184, "OP_NOP9"],
  [185, "OP_NOP10"],
  [186, "OP_CHECKSIGADD"],
  [255, "OP_INVALIDOPCODE"]
]);
for (let n = 1; n <= 16; n++) NAMES.set(80 + n, String(n));
var TABLE = Array.from({ length: 256 }, (_, op) => NAMES.get(op) ?? "OP_UNKNOWN");
function opcodeName(opcode) {
  return TABLE[opcode] ?? "OP_UNKNOWN";
}

// src/bitcoin/signature-encoding.ts
function isValidSignatureEncoding(sig) {
  const len = sig.length;
  if (len < 9 || len > 73) return false;
  if (sig[0] !== 48) return false;
  if (sig[1] !== len - 3) return false;
  const lenR = sig[3];
  if (5 + lenR >= len) return false;
  const lenS = sig[5 + lenR];
  if (lenR + lenS + 7 !== len) return false;
  if (sig[2] !== 2) return false;
  if (lenR === 0) return false;
  if (sig[4] & 128) return false;
  if (lenR > 1 && sig[4] === 0 && !(sig[5] & 128)) return false;
  if (sig[lenR + 4] !== 2) return false;
  if (lenS === 0) return false;
  if (sig[lenR + 6] & 128) return false;
  if (lenS > 1 && sig[lenR + 6] === 0 && !(sig[lenR + 7] & 128)) return false;
  return true;
}
var SIGHASH_NAMES = /* @__PURE__ */ new Map([
  [1, "ALL"],
  [129, "ALL|ANYONECANPAY"],
  [2, "NONE"],
  [130, "NONE|ANYONECANPAY"],
  [3, "SINGLE"],
  [131, "SINGLE|ANYONECANPAY"]
]);
function sighashToStr(hashtype) {
  return SIGHASH_NAMES.get(hashtype) ?? "";
}
function isStrictSignature(sig) {
  if (!isValidSignatureEncoding(sig)) return false;
  const base = sig[sig.length - 1] & ~128;
  return base >= 1 && base <= 3;
}

// src/bitcoin/script-asm.ts
function decodeScriptNum(data) {
  const n = data.length;
  if (n === 0) return 0;
  let v = 0;
  for (let i = 0; i < n; i++) v += data[i] * 2 ** (8 * i);
  const top = data[n - 1];
  if (top & 128) return -(v - 128 * 2 ** (8 * (n - 1)));
  return v;
}
function isUnspendable(script) {
  return script.length > 0 && script[0] === OP_RETURN || script.length > MAX_SCRIPT_SIZE;
}
function pushHex(script, hex, start, end) {
  return hex === void 0 ? toHex(script.subarray(start, end)) : hex.slice(2 * start, 2 * end);
}
function scriptToAsm(script, opts = {}) {
  const decodeSighash = opts.sighashDecode === true && !isUnspendable(script);
  const hex = opts.hex;
  const parts = [];
  let pc = 0;
  while (pc < script.length) {
    const op = readOp(script, pc);
    if (op === null) {
      parts.push("[error]");
      break;
    }
    pc = op.end;
    const data = op.data;
    if (data !== null && op.opcode <= OP_PUSHDATA4) {
      if (data.length <= 4) {
        parts.push(String(decodeScriptNum(data)));
      } else if (decodeSighash && isStrictSignature(data)) {
        const name = sighashToStr(data[data.length - 1]);
        parts.push(`${pushHex(script, hex, op.end - data.length, op.end - 1)}[${name}]`);
      } else {
        parts.push(pushHex(script, hex, op.end - data.length, op.end));
      }
    } else {
      parts.push(opcodeName(op.opcode));
    }
  }
  return parts.join(" ");
}

// src/bitcoin/tx-json.ts
var ScriptPubKeyParts = class {
  constructor(script, network) {
    this.script = script;
    this.network = network;
  }
  script;
  network;
  solution;
  hexText;
  asmText;
  descText;
  addressSolved = false;
  addressText;
  get solved() {
    this.solution ??= solve(this.script);
    return this.solution;
  }
  get type() {
    return this.solved.type;
  }
  get hex() {
    this.hexText ??= toHex(this.script);
    return this.hexText;
  }
  get asm() {
    this.asmText ??= scriptToAsm(this.script, { hex: this.hex });
    return this.asmText;
  }
  /** Core's ExtractDestination + EncodeDestination; undefined where the script has no address. */
  get address() {
    if (!this.addressSolved) {
      this.addressText = solutionToAddress(this.solved, this.network);
      this.addressSolved = true;
    }
    return this.addressText;
  }
  get desc() {
    this.descText ??= inferDescriptorFromSolution(
      this.script,
      this.solved,
      this.network,
      this.hex,
      () => this.address
    );
    return this.descText;
  }
  /** ScriptToUniv's object: asm, desc, hex, [address], type — in that order. */
  toJson() {
    const { asm, desc, hex, address, type } = this;
    return address === void 0 ? { asm, desc, hex, type } : { asm, desc, hex, address, type };
  }
};
function scriptPubKeyToJson(script, network) {
  return new ScriptPubKeyParts(script, network).toJson();
}
function scriptSigJson(script) {
  const hex = toHex(script);
  return { asm: scriptToAsm(script, { sighashDecode: true, hex }), hex };
}
function witnessJson(witness) {
  const out = new Array(witness.length);
  for (let i = 0; i < witness.length; i++) out[i] = toHex(witness[i]);
  return out;
}
function txToUniv(tx, opts) {
  const { network } = opts;
  const coinbase = tx.isCoinbase;
  let spent = null;
  if (opts.prevouts !== void 0 && !coinbase && tx.inputs.length > 0) {
    spent = [];
    for (const input of tx.inputs) {
      const p = lookupPrevout(opts.prevouts, input.prevTxid, input.vout);
      if (p === void 0) {
        spent = null;
        break;
      }
      spent.push(p);
    }
  }
  const vin = new Array(tx.inputs.length);
  let totalIn = 0n;
  for (let i = 0; i < tx.inputs.length; i++) {
    const input = tx.inputs[i];
    const witness = input.witness.length > 0 ? witnessJson(input.witness) : void 0;
    if (coinbase) {
      const hex = toHex(input.scriptSig);
      vin[i] = witness === void 0 ? { coinbase: hex, sequence: input.sequence } : { coinbase: hex, txinwitness: witness, sequence: input.sequence };
      continue;
    }
    let prevout;
    if (spent !== null) {
      const p = spent[i];
      totalIn += p.valueSats;
    }
    if (spent !== null && (opts.prevoutDetails ?? true)) {
      const p = spent[i];
      prevout = {
        generated: p.coinbase,
        height: p.height,
        value: amountToJson(p.valueSats),
        scriptPubKey: scriptPubKeyToJson(p.scriptPubKey, network)
      };
    }
    vin[i] = {
      txid: input.prevTxid,
      vout: input.vout,
      scriptSig: scriptSigJson(input.scriptSig),
      ...witness === void 0 ? {} : { txinwitness: witness },
      ...prevout === void 0 ? {} : { prevout },
      sequence: input.sequence
    };
  }
  const vout = new Array(tx.outputs.length);
  let totalOut = 0n;
  for (let n = 0; n < tx.outputs.length; n++) {
    const o = tx.outputs[n];
    totalOut += o.value;
    vout[n] = {
      value: amountToJson(o.value),
      n,
      scriptPubKey: scriptPubKeyToJson(o.scriptPubKey, network)
    };
  }
  const result = {
    txid: tx.txid,
    hash: tx.wtxid,
    version: tx.version,
    size: tx.size,
    vsize: tx.vsize,
    weight: tx.weight,
    locktime: tx.locktime,
    vin,
    vout
  };
  if (spent !== null) result.fee = amountToJson(totalIn - totalOut);
  if (opts.blockhash !== void 0) result.blockhash = opts.blockhash;
  if (opts.includeHex ?? true) result.hex = tx.hex;
  return result;
}
function txFee(tx, prevouts) {
  if (tx.isCoinbase) return void 0;
  let total = 0n;
  for (const input of tx.inputs) {
    const p = lookupPrevout(prevouts, input.prevTxid, input.vout);
    if (p === void 0) return void 0;
    total += p.valueSats;
  }
  for (const o of tx.outputs) total -= o.value;
  return total;
}

// src/bitcoin/block-json.ts
import { LosslessNumber as LosslessNumber3 } from "lossless-json";

// src/bitcoin/pow.ts
var POW_LIMIT = {
  mainnet: 0x00000000ffffffffffffffffffffffffffffffffffffffffffffffffffffffffn,
  testnet: 0x00000000ffffffffffffffffffffffffffffffffffffffffffffffffffffffffn,
  testnet4: 0x00000000ffffffffffffffffffffffffffffffffffffffffffffffffffffffffn,
  signet: 0x00000377ae000000000000000000000000000000000000000000000000000000n,
  regtest: 0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffn
};
var UINT256_MASK = (1n << 256n) - 1n;
function deriveTarget(bits, network) {
  const size = bits >>> 24;
  let word = bits & 8388607;
  let target;
  if (size <= 3) {
    word >>>= 8 * (3 - size);
    target = BigInt(word);
  } else {
    target = BigInt(word) << BigInt(8 * (size - 3)) & UINT256_MASK;
  }
  const negative = word !== 0 && (bits & 8388608) !== 0;
  const overflow = word !== 0 && (size > 34 || word > 255 && size > 33 || word > 65535 && size > 32);
  if (negative || overflow || target === 0n || target > POW_LIMIT[network]) return void 0;
  return target;
}
function uint256Hex(value) {
  return value.toString(16).padStart(64, "0");
}
function getDifficulty(bits) {
  let shift = bits >>> 24 & 255;
  let diff = 65535 / (bits & 16777215);
  while (shift < 29) {
    diff *= 256;
    shift++;
  }
  while (shift > 29) {
    diff /= 256;
    shift--;
  }
  return diff;
}

// src/bitcoin/univalue-double.ts
function univalueDouble(value, precision = 16) {
  if (!Number.isFinite(value)) {
    throw new RangeError(`${value} has no JSON form`);
  }
  if (value === 0) return Object.is(value, -0) ? "-0" : "0";
  const sign = value < 0 ? "-" : "";
  const { digits, exponent } = roundSignificant(exactDecimal(Math.abs(value)), precision);
  const s = digits.replace(/0+$/, "");
  if (exponent < -4 || exponent >= precision) {
    const mantissa = s.length > 1 ? `${s[0]}.${s.slice(1)}` : s;
    const e = Math.abs(exponent).toString().padStart(2, "0");
    return `${sign}${mantissa}e${exponent < 0 ? "-" : "+"}${e}`;
  }
  if (exponent < 0) return `${sign}0.${"0".repeat(-exponent - 1)}${s}`;
  const whole = s.slice(0, exponent + 1).padEnd(exponent + 1, "0");
  const fraction = s.slice(exponent + 1);
  return `${sign}${whole}${fraction ? `.${fraction}` : ""}`;
}
function exactDecimal(value) {
  const view2 = new DataView(new ArrayBuffer(8));
  view2.setFloat64(0, value);
  const high = view2.getUint32(0);
  const biased = high >>> 20 & 2047;
  const fraction = BigInt(high & 1048575) << 32n | BigInt(view2.getUint32(4));
  const mantissa = biased === 0 ? fraction : fraction | 1n << 52n;
  const power = biased === 0 ? -1074 : biased - 1075;
  if (power >= 0) {
    const digits2 = (mantissa << BigInt(power)).toString();
    return { digits: digits2, exponent: digits2.length - 1 };
  }
  const digits = (mantissa * 5n ** BigInt(-power)).toString();
  return { digits, exponent: digits.length - 1 + power };
}
function roundSignificant(exact, precision) {
  const { digits, exponent } = exact;
  if (digits.length <= precision) return exact;
  const head = digits.slice(0, precision);
  const rest = digits.slice(precision);
  const tie = rest[0] === "5" && /^50*$/.test(rest);
  const up = rest[0] > "5" || rest[0] === "5" && !tie || tie && Number(head.at(-1)) % 2 === 1;
  if (!up) return { digits: head, exponent };
  const bumped = (BigInt(head) + 1n).toString();
  return bumped.length > precision ? { digits: bumped.slice(0, precision), exponent: exponent + 1 } : { digits: bumped, exponent };
}

// src/bitcoin/block-json.ts
var NULL_HASH = "0".repeat(64);
function blockToUniv(block, opts) {
  const ctx = opts.context ?? {};
  const bits = Number.parseInt(block.bits, 16);
  const target = deriveTarget(bits, opts.network);
  if (target === void 0) {
    throw new DecodeError(`nBits ${block.bits} encode no valid ${opts.network} target`);
  }
  const coinbase = block.transactions[0];
  if (coinbase === void 0 || coinbase.inputs.length === 0) {
    throw new DecodeError("block has no coinbase input");
  }
  const input = coinbase.inputs[0];
  const hasParent = ctx.height !== void 0 ? ctx.height > 0 : block.previousblockhash !== NULL_HASH;
  return {
    hash: block.hash,
    ...ctx.confirmations === void 0 ? {} : { confirmations: ctx.confirmations },
    ...ctx.height === void 0 ? {} : { height: ctx.height },
    version: block.version,
    versionHex: (block.version >>> 0).toString(16).padStart(8, "0"),
    merkleroot: block.merkleroot,
    time: block.time,
    ...ctx.mediantime === void 0 ? {} : { mediantime: ctx.mediantime },
    nonce: block.nonce,
    bits: block.bits,
    target: uint256Hex(target),
    difficulty: new LosslessNumber3(univalueDouble(getDifficulty(bits))),
    ...ctx.chainwork === void 0 ? {} : { chainwork: ctx.chainwork },
    nTx: block.transactions.length,
    ...hasParent ? { previousblockhash: block.previousblockhash } : {},
    ...ctx.nextblockhash === void 0 ? {} : { nextblockhash: ctx.nextblockhash },
    strippedsize: block.strippedsize,
    size: block.size,
    weight: block.weight,
    coinbase_tx: {
      version: coinbase.version,
      locktime: coinbase.locktime,
      sequence: input.sequence,
      coinbase: toHex(input.scriptSig),
      // Consensus allows a coinbase witness of exactly one item (the BIP141 reserved value);
      // Core's CHECK_NONFATAL refuses any other stack, which no block in its index can have.
      ...input.witness.length === 1 ? { witness: toHex(input.witness[0]) } : {}
    },
    tx: opts.verbosity === 1 ? block.transactions.map((tx) => tx.txid) : block.transactions.map((tx) => txToUniv(tx, { network: opts.network }))
  };
}

// src/bitcoin/block-records.ts
var MAINNET_MAGIC = Uint8Array.of(249, 190, 180, 217);
function* readBlockRecords(bytes, magic = MAINNET_MAGIC) {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let pos = 0;
  while (pos < bytes.length) {
    if (bytes[pos] === 0 && bytes.subarray(pos).every((b) => b === 0)) return;
    if (bytes.length - pos < 8) throw new DecodeError("truncated block record header", pos);
    for (let i = 0; i < 4; i++) {
      if (bytes[pos + i] !== magic[i]) throw new DecodeError("bad network magic", pos);
    }
    const len = dv.getUint32(pos + 4, true);
    pos += 8;
    if (len > bytes.length - pos) {
      throw new DecodeError(`block record of ${len} bytes exceeds the file`, pos - 4);
    }
    yield bytes.subarray(pos, pos + len);
    pos += len;
  }
}

// src/bitcoin/decode-script.ts
function isOpSuccess(op) {
  return op === 80 || op === 98 || op >= 126 && op <= 129 || op >= 131 && op <= 134 || op >= 137 && op <= 138 || op >= 141 && op <= 142 || op >= 149 && op <= 153 || op >= 187 && op <= 254;
}
function canWrap(script, sol) {
  switch (sol.type) {
    case "multisig":
    case "nonstandard":
    case "pubkey":
    case "pubkeyhash":
    case "witness_v0_keyhash":
    case "witness_v0_scripthash":
      break;
    default:
      return false;
  }
  if (!hasValidOps(script)) return false;
  if (script.length > 0 && script[0] === OP_RETURN || script.length > MAX_SCRIPT_SIZE)
    return false;
  for (let pc = 0; pc < script.length; ) {
    const op = readOp(script, pc);
    if (op === null) return false;
    if (op.opcode === OP_CHECKSIGADD || isOpSuccess(op.opcode)) return false;
    pc = op.end;
  }
  return true;
}
function canWrapP2WSH(sol) {
  switch (sol.type) {
    case "pubkey":
      return sol.pubkey.length === 33;
    case "multisig":
      return sol.pubkeys.every((k) => k.length === 33);
    case "nonstandard":
    case "pubkeyhash":
      return true;
    default:
      return false;
  }
}
function p2wpkh(hash2) {
  const s = new Uint8Array(22);
  s[1] = 20;
  s.set(hash2, 2);
  return s;
}
function p2wsh(script) {
  const s = new Uint8Array(34);
  s[1] = 32;
  s.set(sha256(script), 2);
  return s;
}
function decodeScriptToUniv(script, network) {
  const sol = solve(script);
  const asm = scriptToAsm(script);
  const address = solutionToAddress(sol, network);
  const desc = inferDescriptorFromSolution(script, sol, network, void 0, () => address);
  const out = address === void 0 ? { asm, desc, type: sol.type } : { asm, desc, address, type: sol.type };
  if (!canWrap(script, sol)) return out;
  const scriptHashVersion = NETWORKS[network].scriptHash;
  out.p2sh = encodeBase58Address(scriptHashVersion, hash160(script));
  if (!canWrapP2WSH(sol)) return out;
  let segwitScript;
  let segwitDesc;
  if (sol.type === "pubkey") {
    segwitScript = p2wpkh(hash160(sol.pubkey));
  } else if (sol.type === "pubkeyhash") {
    segwitScript = p2wpkh(sol.hash);
  } else {
    segwitScript = p2wsh(script);
    if (sol.type === "multisig") {
      segwitDesc = addChecksum(`wsh(multi(${sol.required},${sol.pubkeys.map(toHex).join(",")}))`);
    }
  }
  const inner = scriptPubKeyToJson(segwitScript, network);
  out.segwit = {
    asm: inner.asm,
    desc: segwitDesc ?? inner.desc,
    hex: inner.hex,
    ...inner.address === void 0 ? {} : { address: inner.address },
    type: inner.type,
    "p2sh-segwit": encodeBase58Address(scriptHashVersion, hash160(segwitScript))
  };
  return out;
}

// src/bitcoin/serialize.ts
var ByteWriter = class {
  out;
  dv;
  pos = 0;
  constructor(size) {
    this.out = new Uint8Array(size);
    this.dv = new DataView(this.out.buffer);
  }
  u8(v) {
    this.out[this.pos++] = v;
  }
  u32(v) {
    this.dv.setUint32(this.pos, v >>> 0, true);
    this.pos += 4;
  }
  i64(v) {
    this.dv.setBigInt64(this.pos, v, true);
    this.pos += 8;
  }
  bytes(b) {
    this.out.set(b, this.pos);
    this.pos += b.length;
  }
  compactSize(n) {
    if (n < 253) {
      this.u8(n);
    } else if (n <= 65535) {
      this.u8(253);
      this.dv.setUint16(this.pos, n, true);
      this.pos += 2;
    } else {
      this.u8(254);
      this.u32(n);
    }
  }
  varBytes(b) {
    this.compactSize(b.length);
    this.bytes(b);
  }
};
function varBytesLength(b) {
  return compactSizeLength(b.length) + b.length;
}
function hasAnyWitness(tx) {
  return tx.inputs.some((i) => i.witness.length > 0);
}
function serializeTransaction(tx, opts = {}) {
  const extended = (opts.witness ?? true) && hasAnyWitness(tx);
  let size = 4 + compactSizeLength(tx.inputs.length) + compactSizeLength(tx.outputs.length) + 4;
  for (const i of tx.inputs) size += 32 + 4 + varBytesLength(i.scriptSig) + 4;
  for (const o of tx.outputs) size += 8 + varBytesLength(o.scriptPubKey);
  if (extended) {
    size += 2;
    for (const i of tx.inputs) {
      size += compactSizeLength(i.witness.length);
      for (const item of i.witness) size += varBytesLength(item);
    }
  }
  const w = new ByteWriter(size);
  w.u32(tx.version);
  if (extended) {
    w.u8(0);
    w.u8(1);
  }
  w.compactSize(tx.inputs.length);
  for (const i of tx.inputs) {
    w.bytes(i.prevTxidBytes);
    w.u32(i.vout);
    w.varBytes(i.scriptSig);
    w.u32(i.sequence);
  }
  w.compactSize(tx.outputs.length);
  for (const o of tx.outputs) {
    w.i64(o.value);
    w.varBytes(o.scriptPubKey);
  }
  if (extended) {
    for (const i of tx.inputs) {
      w.compactSize(i.witness.length);
      for (const item of i.witness) w.varBytes(item);
    }
  }
  w.u32(tx.locktime);
  return w.out;
}

export {
  RawJsonText,
  parseJson,
  stringifyJson,
  allPlainScalars,
  isJsonNumber,
  jsonInteger,
  isJsonObject,
  jsonNumber,
  sha256,
  sha256d,
  OP_RETURN,
  MAX_SCRIPT_SIZE,
  solve,
  addressToScript,
  COIN,
  formatAmount,
  amountToJson,
  parseAmount,
  DecodeError,
  toHex,
  toHexReversed,
  fromHex,
  fromHexReversed,
  computeMerkleRoot,
  parseTransaction,
  parseBlockHeader,
  parseBlock,
  checkMerkleRoot,
  deriveTarget,
  uint256Hex,
  getDifficulty,
  loadPrevoutsFile,
  scriptToAsm,
  ScriptPubKeyParts,
  scriptPubKeyToJson,
  txToUniv,
  txFee,
  univalueDouble,
  blockToUniv,
  readBlockRecords,
  decodeScriptToUniv,
  serializeTransaction
};
