import {
  type ScriptPubKeyParts,
  type ScriptType,
  scriptToAsm,
  toHex,
} from "../../../bitcoin/index.ts";
import { builder } from "../builder.ts";

const SCRIPT_TYPES: Record<ScriptType, string> = {
  pubkey: "Pay to a bare public key",
  pubkeyhash: "P2PKH",
  scripthash: "P2SH",
  multisig: "Bare multisig",
  nulldata: "OP_RETURN data carrier",
  witness_v0_keyhash: "P2WPKH",
  witness_v0_scripthash: "P2WSH",
  witness_v1_taproot: "P2TR",
  anchor: "Pay to anchor (P2A)",
  witness_unknown: "A witness program of an unknown version",
  nonstandard: "None of the above",
};

export const ScriptTypeEnum = builder.enumType("ScriptType", {
  description: "Bitcoin Core's script types (the `type` of a scriptPubKey), upper-cased.",
  values: Object.fromEntries(
    Object.entries(SCRIPT_TYPES).map(([core, description]) => [
      core.toUpperCase(),
      { value: core, description },
    ]),
  ) as Record<string, { value: ScriptType; description: string }>,
});

/** The fields below whose resolvers read their parent alone (see TRANSACTION_PLAIN_FIELDS). */
export const SCRIPT_PLAIN_FIELDS: Readonly<Record<string, ReadonlySet<string>>> = {
  ScriptPubKey: new Set(["asm", "hex", "desc", "type", "address"]),
  ScriptSig: new Set(["asm", "hex"]),
};

/**
 * An output script with the network its address is written for. Each part is decoded on first
 * use and kept, so the fields asked share the work and the ones not asked cost nothing.
 */
export const ScriptPubKey = builder.objectRef<ScriptPubKeyParts>("ScriptPubKey").implement({
  description: "An output's locking script, decoded as Core's scriptPubKey object.",
  fields: (t) => ({
    asm: t.string({ resolve: (s) => s.asm }),
    hex: t.field({ type: "Hex", resolve: (s) => s.hex }),
    desc: t.string({
      description: "Output descriptor with its checksum.",
      resolve: (s) => s.desc,
    }),
    type: t.field({ type: ScriptTypeEnum, resolve: (s) => s.type }),
    address: t.string({
      nullable: true,
      description:
        "For the network asked about; null where the script has no address (bare pubkey, OP_RETURN…).",
      resolve: (s) => s.address ?? null,
    }),
  }),
});

export const ScriptSig = builder.objectRef<Uint8Array>("ScriptSig").implement({
  description: "An input's unlocking script.",
  fields: (t) => ({
    asm: t.string({
      description: "As Core prints it, signature hash types decoded ([ALL], [NONE|ANYONECANPAY]…).",
      resolve: (s) => scriptToAsm(s, { sighashDecode: true }),
    }),
    hex: t.field({ type: "Hex", resolve: (s) => toHex(s) }),
  }),
});
