import { BLOCK_170, HAL_TXID } from "./harness.ts";

/** Esplora's own answers (blockstream.info), byte for byte, for the route's tests and clients. */

/** blockstream.info's answer for block 170, byte for byte. */
export const BLOCK_170_JSON =
  '{"id":"00000000d1145790a8694403d4063f323d499e655c83426834d4ce2f8dd4a2ee","height":170,"version":1,"timestamp":1231731025,"tx_count":2,"size":490,"weight":1960,"merkle_root":"7dac2c5666815c17a3b36427de37bb9d2e2c5ccec3f8633eb91a4205cb4c10ff","previousblockhash":"000000002a22cfee1f2c846adbd12b3e183d4f97683f85dad08a79780a84bd55","mediantime":1231716245,"nonce":1889418792,"bits":486604799,"difficulty":1}';

const SATOSHI_P2PK =
  "410411db93e1dcdb8a016b49840f8c53bc1eb68a382e97b1482ecad7b148a6909a5cb2e0eaddfb84ccf9744464f82e160bfa9b8b64f9d4c03f999b8643f656b412a3ac";
const HAL_P2PK =
  "4104ae1a62fe09c5f51b13905f07f06b99a2f7159b2225f374cd378d71302fa28414e7aab37397f554a7df5f142c21c1b7303b8a0626f1baded5c72a704f7e6cd84cac";
const asm = (p2pk: string) => `OP_PUSHBYTES_65 ${p2pk.slice(2, -2)} OP_CHECKSIG`;
const p2pkOut = (script: string, value: number) =>
  `{"scriptpubkey":"${script}","scriptpubkey_asm":"${asm(script)}","scriptpubkey_type":"p2pk","value":${value}}`;
const SIG =
  "47304402204e45e16932b8af514961a1d3a1a25fdf3f4f7732e9d624c6c61548ab5fb8cd410220181522ec8eca07de4860a4acdd12909d831cc56cbbac4622082221a8768d1d0901";

/** blockstream.info's answer for the Satoshi → Hal transaction, byte for byte. */
export const HAL_TX_JSON = `{"txid":"${HAL_TXID}","version":1,"locktime":0,"vin":[{"txid":"0437cd7f8525ceed2324359c2d0ba26006d92d856a9c20fa0241106ee5a597c9","vout":0,"prevout":${p2pkOut(SATOSHI_P2PK, 5000000000)},"scriptsig":"${SIG}","scriptsig_asm":"OP_PUSHBYTES_71 ${SIG.slice(2)}","is_coinbase":false,"sequence":4294967295}],"vout":[${p2pkOut(HAL_P2PK, 1000000000)},${p2pkOut(SATOSHI_P2PK, 4000000000)}],"size":275,"weight":1100,"fee":0,"status":{"confirmed":true,"block_height":170,"block_hash":"${BLOCK_170}","block_time":1231731025}}`;
