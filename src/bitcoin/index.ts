export {
  type Block,
  type BlockHeader,
  blockMerkleRoot,
  checkMerkleRoot,
  parseBlock,
  parseBlockHeader,
} from "./block.ts";
export { MAINNET_MAGIC, readBlockRecords } from "./block-records.ts";
export { DecodeError } from "./errors.ts";
export { hash160, sha256, sha256d } from "./hash.ts";
export { fromHex, fromHexReversed, toHex, toHexReversed } from "./hex.ts";
export { computeMerkleRoot } from "./merkle.ts";
export { ByteReader } from "./reader.ts";
export { serializeTransaction, type TransactionFields } from "./serialize.ts";
export {
  parseTransaction,
  readTransaction,
  Transaction,
  type TxInput,
  type TxOutput,
} from "./transaction.ts";
