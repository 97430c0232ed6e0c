/**
 * Default prices (CC per call) of every method the JSON-RPC mirrors serve, per network: `default`
 * for every network not named. Weighted by the work the upstream does for the call: a counter
 * read (getblockcount) is 10, a block header 20, a whole block 100, its decoded transactions
 * (getblock verbosity 2) 300 and with every prevout (verbosity 3) 500, a script's whole history
 * 100. Mainnet costs twice the rest, as the interface's own two prices do.
 *
 * A key `<method>/<variant>` prices one form of a method (the mirrors name the form: getblock's
 * verbosity); a form with no key of its own costs the method's price. `getrawtransaction` and
 * `blockchain.transaction.get` keep the prices the interface states.
 */
export const DEFAULT_PRICES = {
  // Bitcoin Core
  getrawtransaction: { default: 100, mainnet: 200 },
  getblock: { default: 100, mainnet: 200 },
  "getblock/2": { default: 300, mainnet: 600 },
  "getblock/3": { default: 500, mainnet: 1000 },
  getblockhash: { default: 10, mainnet: 20 },
  getblockheader: { default: 20, mainnet: 40 },
  getblockcount: { default: 10, mainnet: 20 },
  getbestblockhash: { default: 10, mainnet: 20 },
  getblockchaininfo: { default: 20, mainnet: 40 },
  getblockstats: { default: 300, mainnet: 600 },
  getchaintips: { default: 20, mainnet: 40 },
  getdifficulty: { default: 10, mainnet: 20 },
  getmempoolinfo: { default: 20, mainnet: 40 },
  getrawmempool: { default: 50, mainnet: 100 },
  "getrawmempool/verbose": { default: 200, mainnet: 400 },
  getmempoolentry: { default: 20, mainnet: 40 },
  gettxout: { default: 30, mainnet: 60 },
  gettxoutproof: { default: 100, mainnet: 200 },
  estimatesmartfee: { default: 20, mainnet: 40 },
  decoderawtransaction: { default: 20, mainnet: 40 },
  decodescript: { default: 10, mainnet: 20 },
  validateaddress: { default: 10, mainnet: 20 },
  getnetworkinfo: { default: 10, mainnet: 20 },
  uptime: { default: 5, mainnet: 10 },
  sendrawtransaction: { default: 200, mainnet: 400 },
  testmempoolaccept: { default: 100, mainnet: 200 },
  // A child and its parents (Core takes at most 25): twice a single broadcast.
  submitpackage: { default: 400, mainnet: 800 },
  // Electrum protocol 1.4
  "blockchain.transaction.get": { default: 50, mainnet: 100 },
  // The session's own business is free: wallets ask these at every connect (server.version,
  // banner, donation address, peers, features) and ping every few seconds while they wait.
  "server.version": { default: 0, mainnet: 0 },
  "server.features": { default: 0, mainnet: 0 },
  "server.banner": { default: 0, mainnet: 0 },
  "server.ping": { default: 0, mainnet: 0 },
  "server.donation_address": { default: 0, mainnet: 0 },
  "server.peers.subscribe": { default: 0, mainnet: 0 },
  "server.add_peer": { default: 0, mainnet: 0 },
  "blockchain.block.header": { default: 20, mainnet: 40 },
  "blockchain.block.headers": { default: 50, mainnet: 100 },
  "blockchain.headers.subscribe": { default: 10, mainnet: 20 },
  "blockchain.estimatefee": { default: 20, mainnet: 40 },
  "blockchain.relayfee": { default: 5, mainnet: 10 },
  "blockchain.scripthash.get_balance": { default: 50, mainnet: 100 },
  "blockchain.scripthash.get_history": { default: 100, mainnet: 200 },
  "blockchain.scripthash.get_mempool": { default: 50, mainnet: 100 },
  "blockchain.scripthash.listunspent": { default: 100, mainnet: 200 },
  // The status is the hash of the whole history: the work of get_history.
  "blockchain.scripthash.subscribe": { default: 100, mainnet: 200 },
  // Answered by the gateway from the session's own list: no upstream work.
  "blockchain.scripthash.unsubscribe": { default: 0, mainnet: 0 },
  "blockchain.transaction.get_merkle": { default: 50, mainnet: 100 },
  "blockchain.transaction.id_from_pos": { default: 50, mainnet: 100 },
  "blockchain.transaction.broadcast": { default: 200, mainnet: 400 },
  "mempool.get_fee_histogram": { default: 20, mainnet: 40 },
  // Esplora (electrs' REST API), by endpoint: the same weights as the RPC that does the work.
  "esplora.blocks.tip.height": { default: 10, mainnet: 20 },
  "esplora.blocks.tip.hash": { default: 10, mainnet: 20 },
  "esplora.blocks": { default: 100, mainnet: 200 },
  "esplora.block-height": { default: 10, mainnet: 20 },
  "esplora.block": { default: 20, mainnet: 40 },
  "esplora.block.status": { default: 20, mainnet: 40 },
  "esplora.block.txids": { default: 100, mainnet: 200 },
  "esplora.block.header": { default: 20, mainnet: 40 },
  "esplora.block.raw": { default: 100, mainnet: 200 },
  "esplora.block.txid": { default: 50, mainnet: 100 },
  "esplora.block.txs": { default: 300, mainnet: 600 },
  "esplora.address": { default: 50, mainnet: 100 },
  "esplora.address.txs": { default: 300, mainnet: 600 },
  "esplora.address.txs.chain": { default: 300, mainnet: 600 },
  "esplora.address.txs.mempool": { default: 300, mainnet: 600 },
  "esplora.address.utxo": { default: 100, mainnet: 200 },
  "esplora.scripthash": { default: 50, mainnet: 100 },
  "esplora.scripthash.txs": { default: 300, mainnet: 600 },
  "esplora.scripthash.txs.chain": { default: 300, mainnet: 600 },
  "esplora.scripthash.txs.mempool": { default: 300, mainnet: 600 },
  "esplora.scripthash.utxo": { default: 100, mainnet: 200 },
  "esplora.tx": { default: 100, mainnet: 200 },
  "esplora.tx.hex": { default: 50, mainnet: 100 },
  "esplora.tx.raw": { default: 50, mainnet: 100 },
  "esplora.tx.status": { default: 20, mainnet: 40 },
  "esplora.tx.merkle-proof": { default: 50, mainnet: 100 },
  "esplora.tx.outspend": { default: 30, mainnet: 60 },
  "esplora.tx.outspends": { default: 50, mainnet: 100 },
  "esplora.tx.broadcast": { default: 200, mainnet: 400 },
  "esplora.mempool": { default: 20, mainnet: 40 },
  "esplora.mempool.txids": { default: 50, mainnet: 100 },
  "esplora.mempool.recent": { default: 20, mainnet: 40 },
  "esplora.fee-estimates": { default: 20, mainnet: 40 },
  // mempool.space's extensions, built by the gateway: per block, Esplora's block, coinbase txid
  // and transaction, and Core's getblockstats and header. `esplora.v1.blocks` is per block.
  "esplora.v1.block": { default: 500, mainnet: 1000 },
  "esplora.v1.blocks": { default: 500, mainnet: 1000 },
} as const satisfies Record<string, { default: number; mainnet: number }>;

export type PricedMethod = keyof typeof DEFAULT_PRICES;
