import { sha256 } from "./hash.ts";
import { toHexReversed } from "./hex.ts";

/** The Electrum protocol's script hash: SHA-256 of the output script, byte-reversed, as hex. */
export function electrumScripthash(scriptPubKey: Uint8Array): string {
  return toHexReversed(sha256(scriptPubKey));
}

/** OP_RETURN outputs can never be spent; Electrum servers do not index them. */
export function isUnspendable(scriptPubKey: Uint8Array): boolean {
  return scriptPubKey[0] === 0x6a;
}
