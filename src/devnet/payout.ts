import { sha256 } from "../bitcoin/index.ts";
import { concatBytes } from "../bitcoin/script-build.ts";

/**
 * Where devnet's own blocks pay: P2WSH of `OP_TRUE`, valid on every network and spendable by
 * anyone (the witness is the script alone), so tests and `devnet pay` can spend what devnet mined.
 */
export const DEVNET_PAYOUT: Uint8Array = concatBytes(
  Uint8Array.of(0x00, 0x20),
  sha256(Uint8Array.of(0x51)),
);
