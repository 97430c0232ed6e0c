import { addressToScript, type Network, sha256, toHex } from "../../bitcoin/index.ts";
import { badRequest, type EsploraRefusal, type ScriptTarget } from "./request.ts";

/** The networks rust-bitcoin tells apart by an address's prefix. */
type AddressNet = "bitcoin" | "testnet" | "regtest";

/** The prefix family an address of ours belongs to. */
const ADDRESS_NET: Readonly<Record<Network, AddressNet>> = {
  mainnet: "bitcoin",
  testnet: "testnet",
  testnet4: "testnet",
  signet: "testnet",
  regtest: "regtest",
};

/** An address read in whichever network it belongs to, as `Address::from_str` reads it. */
function readAddress(text: string): { script: Uint8Array; net: AddressNet } | null {
  const main = addressToScript(text, "mainnet");
  if (main) return { script: main, net: "bitcoin" };
  if (text.toLowerCase().startsWith("bcrt1")) {
    const regtest = addressToScript(text, "regtest");
    return regtest ? { script: regtest, net: "regtest" } : null;
  }
  const test = addressToScript(text, "testnet");
  return test ? { script: test, net: "testnet" } : null;
}

/**
 * electrs' `to_scripthash`: the SHA-256 of the script an address pays (in hex, not reversed as
 * Electrum writes it), or a script hash as given; refused in electrs' words. An address of
 * another network is refused, except a testnet address on regtest (they share base58 prefixes).
 */
export function esploraScripthash(
  target: ScriptTarget,
  network: Network,
): { scripthash: string; script?: Uint8Array } | EsploraRefusal {
  if (target.kind === "scripthash") {
    if (!/^([0-9a-fA-F]{2})*$/.test(target.text)) return badRequest("Invalid hex string");
    if (target.text.length !== 64) return badRequest("Invalid scripthash");
    return { scripthash: target.text.toLowerCase() };
  }
  const address = readAddress(target.text);
  if (!address) return badRequest("Invalid Bitcoin address");
  const expected = ADDRESS_NET[network];
  const sameNet = address.net === expected || (address.net === "testnet" && expected === "regtest");
  if (!sameNet) return badRequest("Address on invalid network");
  return { scripthash: toHex(sha256(address.script)), script: address.script };
}
