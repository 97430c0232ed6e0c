/**
 * What the gateway checks of a method's answer before serving it (X-Blockgate-Verified), and the
 * upstream work that takes beyond the call itself. That work is included in the method's price:
 * a proof is asked once per block and kept, and a lying upstream must not make honest callers pay.
 */
const CHECKS: Record<string, string> = {
  getrawtransaction:
    "bytes hash to the txid; a confirmed one's block proven against the verified chain (one gettxoutproof per block, kept; included), confirmations from the verified tip",
  getblock:
    "the header hashes to the hash asked (a raw block's transactions to its merkle root) and is on the verified chain",
  getblockheader: "hashes to the hash asked, and is on the verified chain",
  gettxoutproof: "the proof holds for the txids and block asked, a block of the verified chain",
  "blockchain.transaction.get":
    "bytes hash to the txid; verbose: its block proven by a merkle branch (one get_merkle, kept; included)",
  "blockchain.transaction.get_merkle": "the branch leads to the verified header's merkle root",
  "blockchain.block.header": "the verified chain's header at that height",
  "blockchain.block.headers": "the verified chain's headers at those heights",
  "esplora.tx.hex": "bytes hash to the txid",
  "esplora.tx.raw": "bytes hash to the txid",
  "esplora.block.header": "hashes to the hash asked",
  "esplora.block.raw": "the header hashes to the hash asked, its transactions to its merkle root",
};

/** The method's checks, or nothing for a method whose answers are passed on unchecked. */
export function verificationOf(method: string): { verified?: string } {
  const checks = CHECKS[method];
  return checks === undefined ? {} : { verified: checks };
}
