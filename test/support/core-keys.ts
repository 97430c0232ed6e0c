/** Core's TxToUniv key order (src/core_write.cpp), verbosity 1, without block fields. */
export const TX_KEYS = [
  "txid",
  "hash",
  "version",
  "size",
  "vsize",
  "weight",
  "locktime",
  "vin",
  "vout",
  "hex",
];
/** What getrawtransaction appends for a mined transaction. */
export const BLOCK_KEYS = ["blockhash", "confirmations", "time", "blocktime"];
