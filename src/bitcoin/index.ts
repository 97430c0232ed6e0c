// Public surface of the Bitcoin codec. See README.md beside this file.
export {
  addressToScript,
  encodeBase58Address,
  encodeSegwitAddress,
  scriptToAddress,
} from "./address.ts";
export { amountToJson, COIN, formatAmount, parseAmount } from "./amount.ts";
export {
  BLOCK_HEADER_SIZE,
  type Block,
  type BlockHeader,
  blockMerkleRoot,
  checkMerkleRoot,
  parseBlock,
  parseBlockHeader,
} from "./block.ts";
export {
  type BlockChainContext,
  type BlockJson,
  type BlockToUnivOptions,
  blockToUniv,
  type CoinbaseTxJson,
} from "./block-json.ts";
export { MAINNET_MAGIC, readBlockRecords } from "./block-records.ts";
export {
  type DecodeScriptJson,
  type DecodeScriptSegwitJson,
  decodeScriptToUniv,
} from "./decode-script.ts";
export { addChecksum, descriptorChecksum, inferDescriptor } from "./descriptor.ts";
export { DecodeError } from "./errors.ts";
export { hash160, sha256, sha256d } from "./hash.ts";
export { fromHex, fromHexReversed, toHex, toHexReversed } from "./hex.ts";
export { toJsonText } from "./json-text.ts";
export { computeMerkleRoot } from "./merkle.ts";
export { NETWORKS, type Network, type NetworkParams, networkFromChain } from "./network.ts";
export { opcodeName } from "./opcode-names.ts";
export { deriveTarget, getDifficulty, POW_LIMIT, uint256Hex } from "./pow.ts";
export {
  loadPrevoutsFile,
  lookupPrevout,
  outpointKey,
  type Prevout,
  type PrevoutLookup,
  parsePrevoutsJson,
} from "./prevouts.ts";
export { ByteReader, MAX_COMPACT_SIZE } from "./reader.ts";
export { type AsmOptions, scriptToAsm } from "./script-asm.ts";
export { hasValidOps, isPushOnly, MAX_SCRIPT_SIZE, readOp, type ScriptOp } from "./script-ops.ts";
export { serializeTransaction, type TransactionFields } from "./serialize.ts";
export { type ScriptType, type Solution, solve } from "./solver.ts";
export {
  parseTransaction,
  readTransaction,
  Transaction,
  type TxInput,
  type TxOutput,
} from "./transaction.ts";
export {
  type CoinbaseVinJson,
  type PrevoutJson,
  type ScriptPubKeyJson,
  ScriptPubKeyParts,
  scriptPubKeyToJson,
  type TxJson,
  type TxToUnivOptions,
  txFee,
  txToUniv,
  type VinJson,
  type VoutJson,
} from "./tx-json.ts";
export { univalueDouble } from "./univalue-double.ts";
export { isValidXOnlyPubkey } from "./xonly.ts";
