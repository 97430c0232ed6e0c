import type { CoreArgType } from "../../protocol/core/args.ts";
import { CORE_METHOD_ARGS } from "../../protocol/core/method-args.ts";
import { ESPLORA_CATALOGUE } from "./esplora-methods.ts";
import { verificationOf } from "./verification.ts";

/** One parameter as a reader needs it: its name, its JSON type, whether it may be left out. */
export interface CatalogueParam {
  name: string;
  type: string;
  optional: boolean;
}

/** One method a JSON-RPC mirror serves, or one endpoint of the Esplora REST mirror. */
export interface CatalogueMethod {
  backend: "node" | "electrum" | "esplora";
  method: string;
  summary: string;
  params: CatalogueParam[];
  /** The parameters of an example call that devnet answers on mainnet. */
  example: unknown[];
  /** Forms priced apart (`<method>/<variant>` in `pricing`), with what selects each. */
  variants?: { variant: string; when: string }[];
  /** An Esplora endpoint: its verb, its path below `/api`, and an example path devnet answers. */
  rest?: { verb: "GET" | "POST"; path: string; example: string };
  /** What the gateway checks of its answers (./verification.ts); absent: passed on unchecked. */
  verified?: string;
}

const BLOCK_170 = "00000000d1145790a8694403d4063f323d499e655c83426834d4ce2f8dd4a2ee";
const HAL_TXID = "f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16";
const HAL_TX_HEX =
  "0100000001c997a5e56e104102fa209c6a852dd90660a20b2d9c352423edce25857fcd3704000000004847304402204e45e16932b8af514961a1d3a1a25fdf3f4f7732e9d624c6c61548ab5fb8cd410220181522ec8eca07de4860a4acdd12909d831cc56cbbac4622082221a8768d1d0901ffffffff0200ca9a3b00000000434104ae1a62fe09c5f51b13905f07f06b99a2f7159b2225f374cd378d71302fa28414e7aab37397f554a7df5f142c21c1b7303b8a0626f1baded5c72a704f7e6cd84cac00286bee0000000043410411db93e1dcdb8a016b49840f8c53bc1eb68a382e97b1482ecad7b148a6909a5cb2e0eaddfb84ccf9744464f82e160bfa9b8b64f9d4c03f999b8643f656b412a3ac00000000";
/** The P2PK output Satoshi paid Hal (block 170, output 0), and its Electrum script hash. */
const HAL_SCRIPT =
  "4104ae1a62fe09c5f51b13905f07f06b99a2f7159b2225f374cd378d71302fa28414e7aab37397f554a7df5f142c21c1b7303b8a0626f1baded5c72a704f7e6cd84cac";
const HAL_SCRIPTHASH = "77461c6ef27087fdb3d0c1b9630d2ac583fb09167feeb026976a2e48c4489c79";

const CORE_TYPE: Record<CoreArgType, string> = {
  str: "string",
  hex: "hex string",
  num: "number",
  bool: "boolean",
  arr: "array",
  amount: "amount (number or string)",
};

const CORE: [string, string, unknown[], CatalogueMethod["variants"]?][] = [
  [
    "getrawtransaction",
    "A transaction: its hex, or decoded (verbosity 1), with prevouts and fee (2)",
    [HAL_TXID, 1],
  ],
  [
    "getblock",
    "A block: its hex (verbosity 0), header fields and txids (1), decoded transactions (2), with every prevout (3)",
    [BLOCK_170, 1],
    [
      { variant: "2", when: "verbosity 2" },
      { variant: "3", when: "verbosity 3 or more" },
    ],
  ],
  ["getblockhash", "The hash of the best chain's block at a height", [170]],
  ["getblockheader", "A block header, decoded or as hex", [BLOCK_170, true]],
  ["getblockcount", "The height of the best chain's tip", []],
  ["getbestblockhash", "The hash of the best chain's tip", []],
  ["getblockchaininfo", "The chain's state: tip, difficulty, verification progress, size", []],
  [
    "getblockstats",
    "Per-block statistics (fees, sizes, feerates) by hash or height",
    [170, ["txs", "totalfee"]],
  ],
  ["getchaintips", "Every known chain tip and its status", []],
  ["getdifficulty", "The proof-of-work difficulty of the tip", []],
  ["getmempoolinfo", "The mempool's size, bytes, fees and relay floors", []],
  [
    "getrawmempool",
    "The mempool's txids, or every entry in detail (verbose)",
    [false],
    [{ variant: "verbose", when: "verbose true" }],
  ],
  [
    "getmempoolentry",
    "One mempool transaction's fees, sizes and ancestry",
    ["6f9e647386c0b9330675cf05f3ce50788710f7efeb552ed06ab54663d6b5b9d7"],
  ],
  ["gettxout", "An unspent output (null when spent or unknown)", [HAL_TXID, 1]],
  [
    "gettxoutproof",
    "A merkle proof (CMerkleBlock, hex) that transactions are in a block",
    [[HAL_TXID]],
  ],
  ["estimatesmartfee", "A feerate (BTC/kvB) to confirm within a number of blocks", [6]],
  ["decoderawtransaction", "A transaction's hex, decoded", [HAL_TX_HEX]],
  ["decodescript", "A script's hex, decoded, with its addresses", [HAL_SCRIPT]],
  [
    "validateaddress",
    "Whether an address is valid on the network, and its script",
    ["1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa"],
  ],
  ["getnetworkinfo", "The node's version, relay fee and network state", []],
  ["uptime", "Seconds since the node started", []],
  ["sendrawtransaction", "Broadcasts a signed transaction; its txid", [HAL_TX_HEX]],
  [
    "testmempoolaccept",
    "Whether transactions would enter the mempool, without broadcasting",
    [[HAL_TX_HEX]],
  ],
  [
    "submitpackage",
    "Submits a child with its unconfirmed parents to the mempool as one package",
    [[HAL_TX_HEX]],
  ],
];

/** getrawtransaction keeps its own checks (src/protocol/core/methods.ts); its parameters: */
const GETRAWTRANSACTION_PARAMS: CatalogueParam[] = [
  { name: "txid", type: "hex string", optional: false },
  { name: "verbosity", type: "number or boolean", optional: true },
  { name: "blockhash", type: "hex string", optional: true },
];

type ElectrumRow = [string, string, [string, string, boolean][], unknown[]];

/** ElectrumX's signatures (protocol 1.4): parameter names as its handlers declare them. */
const ELECTRUM: ElectrumRow[] = [
  [
    "server.version",
    "Negotiates the protocol version",
    [
      ["client_name", "string", true],
      ["protocol_version", "string or [min, max]", true],
    ],
    ["blockgate-docs", "1.4"],
  ],
  [
    "server.features",
    "The gateway's features: its TLS host, protocol range, the network's genesis hash",
    [],
    [],
  ],
  ["server.banner", "The server's banner text", [], []],
  ["server.ping", "Keeps the session alive; null", [], []],
  ["server.donation_address", 'The operator\'s donation address on the network, or ""', [], []],
  ["server.peers.subscribe", "Other servers to try: [] (the gateway advertises no peers)", [], []],
  [
    "server.add_peer",
    "A server announcing itself as a peer: false (the gateway takes no peers)",
    [["features", "object", false]],
    [{ hosts: {} }],
  ],
  [
    "blockchain.block.header",
    "A block header's hex, with a checkpoint proof when cp_height is given",
    [
      ["height", "number", false],
      ["cp_height", "number", true],
    ],
    [170],
  ],
  [
    "blockchain.block.headers",
    "Consecutive headers' hex, with a checkpoint proof when cp_height is given",
    [
      ["start_height", "number", false],
      ["count", "number", false],
      ["cp_height", "number", true],
    ],
    [0, 11],
  ],
  ["blockchain.headers.subscribe", "The tip's header and height", [], []],
  [
    "blockchain.estimatefee",
    "A feerate (BTC/kB) to confirm within a number of blocks; -1 when unknown",
    [
      ["number", "number", false],
      ["mode", "string", true],
    ],
    [6],
  ],
  ["blockchain.relayfee", "The lowest feerate (BTC/kB) the server relays", [], []],
  [
    "blockchain.scripthash.get_balance",
    "A script's confirmed and unconfirmed balance (sat)",
    [["scripthash", "hex string", false]],
    [HAL_SCRIPTHASH],
  ],
  [
    "blockchain.scripthash.get_history",
    "A script's confirmed and mempool transactions",
    [["scripthash", "hex string", false]],
    [HAL_SCRIPTHASH],
  ],
  [
    "blockchain.scripthash.get_mempool",
    "A script's mempool transactions",
    [["scripthash", "hex string", false]],
    [HAL_SCRIPTHASH],
  ],
  [
    "blockchain.scripthash.listunspent",
    "A script's unspent outputs",
    [["scripthash", "hex string", false]],
    [HAL_SCRIPTHASH],
  ],
  [
    "blockchain.scripthash.subscribe",
    "A script's status (hash of its history, null when empty); on a socket, pushed when it changes",
    [["scripthash", "hex string", false]],
    [HAL_SCRIPTHASH],
  ],
  [
    "blockchain.scripthash.unsubscribe",
    "Stops a socket session's notifications for a script; whether it was subscribed",
    [["scripthash", "hex string", false]],
    [HAL_SCRIPTHASH],
  ],
  [
    "blockchain.transaction.get",
    "A transaction: its hex, or decoded (verbose)",
    [
      ["tx_hash", "hex string", false],
      ["verbose", "boolean", true],
    ],
    [HAL_TXID, true],
  ],
  [
    "blockchain.transaction.get_merkle",
    "A transaction's merkle branch in its block",
    [
      ["tx_hash", "hex string", false],
      ["height", "number", false],
    ],
    [HAL_TXID, 170],
  ],
  [
    "blockchain.transaction.id_from_pos",
    "The txid at a position in a block, with its merkle branch when asked",
    [
      ["height", "number", false],
      ["tx_pos", "number", false],
      ["merkle", "boolean", true],
    ],
    [170, 1, true],
  ],
  [
    "blockchain.transaction.broadcast",
    "Broadcasts a signed transaction; its txid",
    [["raw_tx", "hex string", false]],
    [HAL_TX_HEX],
  ],
  ["mempool.get_fee_histogram", "The mempool's fee histogram: [feerate, vsize] pairs", [], []],
];

/** Every method the mirrors serve, Core's, Electrum's then Esplora's, in the order they are shown. */
export const CATALOGUE: readonly CatalogueMethod[] = [
  ...CORE.map(
    ([method, summary, example, variants]): CatalogueMethod => ({
      backend: "node",
      method,
      summary,
      params:
        method === "getrawtransaction"
          ? GETRAWTRANSACTION_PARAMS
          : CORE_METHOD_ARGS[method]!.args.map((a) => ({
              name: a.names.split("|")[0]!,
              type: a.shownType ?? CORE_TYPE[a.type],
              optional: a.optional === true,
            })),
      example,
      ...(variants ? { variants } : {}),
      ...verificationOf(method),
    }),
  ),
  ...ELECTRUM.map(
    ([method, summary, params, example]): CatalogueMethod => ({
      backend: "electrum",
      method,
      summary,
      params: params.map(([name, type, optional]) => ({ name, type, optional })),
      example,
      ...verificationOf(method),
    }),
  ),
  ...ESPLORA_CATALOGUE.map(
    (e): CatalogueMethod => ({
      backend: "esplora",
      method: e.endpoint,
      summary: e.summary,
      params: [],
      example: [],
      rest: { verb: e.verb, path: e.path, example: e.example },
      ...verificationOf(e.endpoint),
    }),
  ),
];
