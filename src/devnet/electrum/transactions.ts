import { toHexReversed } from "../../bitcoin/hex.ts";
import { BAD_REQUEST } from "../../protocol/electrum/params.ts";
import { pyStr, pyThousands } from "../../protocol/electrum/python-text.ts";
import { type Json, jsonNumber } from "../../protocol/json/json.ts";
import type { DevnetChain } from "../chain.ts";
import { DaemonError } from "./daemon.ts";
import { checked, daemonRequest, type ElectrumBackend, type Handler } from "./handler.ts";
import { branchAndRoot } from "./merkle.ts";
import { ElectrumRpcError } from "./rpc-error.ts";

/**
 * ElectrumX's transaction methods: get and broadcast through the daemon; merkle branches and
 * positions from the blocks devnet holds, as ElectrumX reads a block's tx hashes from its own
 * database.
 */
export function transactionMethods({ chain, daemon }: ElectrumBackend): Record<string, Handler> {
  return {
    "blockchain.transaction.get": checked(
      "blockchain.transaction.get",
      (session, [txHash, verbose]) => {
        // daemon.py casts to int "because some coin daemons are old and require it".
        const flag = jsonNumber(verbose === true ? 1 : 0);
        return daemonRequest(daemon, session, "getrawtransaction", [txHash as Json, flag]);
      },
    ),
    "blockchain.transaction.get_merkle": checked(
      "blockchain.transaction.get_merkle",
      (_session, [hash, h]) => {
        const height = Number(h);
        const txids = txidsAt(chain, height);
        const pos = txids.findIndex((t) => toHexReversed(t) === hash);
        if (pos < 0) {
          throw new ElectrumRpcError(
            BAD_REQUEST,
            `tx ${pyStr(hash)} not in block at height ${pyThousands(height)}`,
          );
        }
        return {
          block_height: jsonNumber(height),
          merkle: branchAndRoot(txids, pos).branch.map(toHexReversed),
          pos: jsonNumber(pos),
        };
      },
    ),
    "blockchain.transaction.id_from_pos": checked(
      "blockchain.transaction.id_from_pos",
      (_session, [h, p, merkle]) => {
        const height = Number(h);
        const pos = Number(p);
        const txids = txidsAt(chain, height);
        const txid = txids[pos];
        if (!txid) {
          throw new ElectrumRpcError(
            BAD_REQUEST,
            `no tx at position ${pyThousands(pos)} in block at height ${pyThousands(height)}`,
          );
        }
        if (merkle !== true) return toHexReversed(txid);
        return {
          tx_hash: toHexReversed(txid),
          merkle: branchAndRoot(txids, pos).branch.map(toHexReversed),
        };
      },
    ),
    "blockchain.transaction.broadcast": checked(
      "blockchain.transaction.broadcast",
      async (session, [rawTx]) => {
        try {
          return await daemon.request("sendrawtransaction", [rawTx as Json], session.signal);
        } catch (err) {
          // ElectrumX answers a refusal with code 1, the daemon's message and the hex sent.
          if (err instanceof DaemonError) {
            throw new ElectrumRpcError(
              BAD_REQUEST,
              `the transaction was rejected by network rules.\n\n${err.error.message}\n[${pyStr(rawTx)}]`,
            );
          }
          throw err;
        }
      },
    ),
  };
}

/**
 * session_mgr.tx_hashes_at_blockheight: a block's txids in wire order. A height above the tip is
 * ElectrumX's DBError; a height devnet's sparse chain lacks is refused the same way.
 */
function txidsAt(chain: DevnetChain, height: number): Uint8Array[] {
  const entry = chain.byHeight.get(height);
  if (!entry || height > chain.tip.height) {
    const why =
      height > chain.tip.height
        ? `(>${pyThousands(chain.tip.height)})`
        : "(devnet holds a sparse chain)";
    throw new ElectrumRpcError(
      BAD_REQUEST,
      `db error: DBError('block ${pyThousands(height)} not on disk ${why}')`,
    );
  }
  return entry.block.transactions.map((tx) => tx.txidBytes);
}
