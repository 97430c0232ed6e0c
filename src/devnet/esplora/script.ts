import {
  encodeBase58Address,
  encodeSegwitAddress,
  NETWORKS,
  type Network,
  toHex,
} from "../../bitcoin/index.ts";

/** rust-bitcoin's opcode names (its `Debug` for `Opcode`), after the shared `OP_` prefix. */
const NAMED: Readonly<Record<number, string>> = {
  76: "PUSHDATA1",
  77: "PUSHDATA2",
  78: "PUSHDATA4",
  79: "PUSHNUM_NEG1",
  80: "RESERVED",
  ...Object.fromEntries(
    [
      "NOP VER IF NOTIF VERIF VERNOTIF ELSE ENDIF VERIFY RETURN TOALTSTACK FROMALTSTACK 2DROP",
      "2DUP 3DUP 2OVER 2ROT 2SWAP IFDUP DEPTH DROP DUP NIP OVER PICK ROLL ROT SWAP TUCK CAT",
      "SUBSTR LEFT RIGHT SIZE INVERT AND OR XOR EQUAL EQUALVERIFY RESERVED1 RESERVED2 1ADD 1SUB",
      "2MUL 2DIV NEGATE ABS NOT 0NOTEQUAL ADD SUB MUL DIV MOD LSHIFT RSHIFT BOOLAND BOOLOR",
      "NUMEQUAL NUMEQUALVERIFY NUMNOTEQUAL LESSTHAN GREATERTHAN LESSTHANOREQUAL",
      "GREATERTHANOREQUAL MIN MAX WITHIN RIPEMD160 SHA1 SHA256 HASH160 HASH256 CODESEPARATOR",
      "CHECKSIG CHECKSIGVERIFY CHECKMULTISIG CHECKMULTISIGVERIFY NOP1 CLTV CSV NOP4 NOP5 NOP6",
      "NOP7 NOP8 NOP9 NOP10 CHECKSIGADD",
    ]
      .join(" ")
      .split(" ")
      .map((name, i) => [0x61 + i, name]),
  ),
};

function opName(op: number): string {
  if (op <= 0x4b) return `OP_PUSHBYTES_${op}`;
  if (op >= 0x51 && op <= 0x60) return `OP_PUSHNUM_${op - 0x50}`;
  return `OP_${NAMED[op] ?? `RETURN_${op}`}`;
}

/** How many bytes a PUSHDATA opcode's length takes. */
const LENGTH_BYTES: Readonly<Record<number, number>> = { 76: 1, 77: 2, 78: 4 };

/**
 * rust-bitcoin's script assembly (`Script::fmt_asm`), what Esplora shows: every opcode by its
 * rust-bitcoin name, `OP_0` for an empty push, pushed data in hex after its opcode, and
 * `<unexpected end>` or `<push past end>` where the script stops short.
 */
export function rustAsm(script: Uint8Array): string {
  const parts: string[] = [];
  let i = 0;
  while (i < script.length) {
    const op = script[i++]!;
    let len = op <= 0x4b ? op : 0;
    const lengthBytes = LENGTH_BYTES[op];
    if (lengthBytes !== undefined) {
      if (i + lengthBytes > script.length) {
        parts.push("<unexpected end>");
        break;
      }
      len = 0;
      for (let b = lengthBytes - 1; b >= 0; b--) len = len * 256 + script[i + b]!;
      i += lengthBytes;
    }
    parts.push(op === 0 ? "OP_0" : opName(op));
    if (len === 0) continue;
    if (i + len > script.length) {
      parts.push("<push past end>");
      break;
    }
    parts.push(toHex(script.subarray(i, i + len)));
    i += len;
  }
  return parts.join(" ");
}

/** rust-bitcoin's IllegalOp class: opcodes that fail a script even unexecuted. */
const ILLEGAL = new Set([
  0x65, 0x66, 0x7e, 0x7f, 0x80, 0x81, 0x83, 0x84, 0x85, 0x86, 0x8d, 0x8e, 0x95, 0x96, 0x97, 0x98,
  0x99,
]);
/** rust-bitcoin's ReturnOp class in a legacy script. */
const isReturnOp = (op: number) => [0x50, 0x62, 0x6a, 0x89, 0x8a].includes(op) || op >= 0xba;

function isWitnessProgram(s: Uint8Array): boolean {
  const version = s[0]!;
  return (
    s.length >= 4 &&
    s.length <= 42 &&
    (version === 0 || (version >= 0x51 && version <= 0x60)) &&
    s[1]! >= 2 &&
    s[1]! <= 40 &&
    s.length - 2 === s[1]
  );
}

/** electrs' `scriptpubkey_type`, its tests in its order. */
export function scriptType(s: Uint8Array): string {
  const n = s.length;
  if (n === 0) return "empty";
  if (s[0] === 0x6a) return "op_return";
  if ((n === 67 && s[0] === 65 && s[66] === 0xac) || (n === 35 && s[0] === 33 && s[34] === 0xac)) {
    return "p2pk";
  }
  if (
    n === 25 &&
    s[0] === 0x76 &&
    s[1] === 0xa9 &&
    s[2] === 20 &&
    s[23] === 0x88 &&
    s[24] === 0xac
  ) {
    return "p2pkh";
  }
  if (n === 23 && s[0] === 0xa9 && s[1] === 20 && s[22] === 0x87) return "p2sh";
  if (n === 22 && s[0] === 0 && s[1] === 20) return "v0_p2wpkh";
  if (n === 34 && s[0] === 0 && s[1] === 32) return "v0_p2wsh";
  if (n === 34 && s[0] === 0x51 && s[1] === 32) return "v1_p2tr";
  if (ILLEGAL.has(s[0]!) || isReturnOp(s[0]!)) return "provably_unspendable";
  return "unknown";
}

/**
 * rust-bitcoin's `Address::from_script`: P2PKH, P2SH and witness programs have an address; a
 * bare public key (P2PK) has none, unlike Core's.
 */
export function scriptAddress(s: Uint8Array, network: Network): string | undefined {
  const p = NETWORKS[network];
  const type = scriptType(s);
  if (type === "p2pkh") return encodeBase58Address(p.pubkeyHash, s.subarray(3, 23));
  if (type === "p2sh") return encodeBase58Address(p.scriptHash, s.subarray(2, 22));
  if (!isWitnessProgram(s)) return undefined;
  const version = s[0] === 0 ? 0 : s[0]! - 0x50;
  if (version === 0 && s.length !== 22 && s.length !== 34) return undefined;
  return encodeSegwitAddress(p.bech32Hrp, version, s.subarray(2));
}

/** Whether an output can be spent (electrs indexes only those): not provably unspendable. */
export function isSpendable(s: Uint8Array): boolean {
  return s.length === 0 || !(ILLEGAL.has(s[0]!) || isReturnOp(s[0]!));
}
