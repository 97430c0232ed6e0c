import { addressToScript, parseTransaction, type Transaction } from "../../bitcoin/index.ts";
import { RPC_INVALID_ADDRESS_OR_KEY } from "../../protocol/core/params.ts";
import type { Json } from "../../protocol/json/json.ts";
import { mineBlocks, produceBlock } from "../produce-block.ts";
import type { CoreContext } from "./context.ts";
import type { RpcMethod } from "./http.ts";
import { intArg, readParams } from "./params.ts";
import { RpcError } from "./rpc-error.ts";

const RPC_DESERIALIZATION_ERROR = -22;

/** An address, or a descriptor Core's generateblock also takes in the two plain forms. */
function outputScript(ctx: CoreContext, output: string): Uint8Array | null {
  const desc = /^(addr|raw)\((.*)\)(#[0-9a-z]{8})?$/.exec(output);
  if (desc?.[1] === "raw" && /^([0-9a-fA-F]{2})*$/.test(desc[2]!))
    return Buffer.from(desc[2]!, "hex");
  return addressToScript(desc?.[1] === "addr" ? desc[2]! : output, ctx.network);
}

/**
 * devnet-only mining (Core's generating.cpp): blocks built on this network's tip, never reachable
 * through the gateway, which refuses mining methods.
 */
export function miningMethods(ctx: CoreContext): Record<string, RpcMethod> {
  return {
    generatetoaddress: (raw) => {
      const [n, address] = readParams(
        "generatetoaddress",
        raw,
        [
          ["nblocks", "number"],
          ["address", "string"],
          ["maxtries", "number"],
        ],
        2,
      );
      const script = addressToScript(address as string, ctx.network);
      if (!script) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, "Error: Invalid address");
      return mineBlocks(ctx.chain, ctx.prevouts, script, intArg(n as Json, 0)).map(
        (b) => b.block.hash,
      );
    },
    generateblock: (raw) => {
      const [output, list] = readParams(
        "generateblock",
        raw,
        [
          ["output", "string"],
          ["transactions", "array"],
          ["submit", "bool"],
        ],
        2,
      );
      const script = outputScript(ctx, output as string);
      if (!script) {
        throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, "Error: Invalid address or descriptor");
      }
      const txs: Transaction[] = [];
      for (const item of list as Json[]) {
        const text = String(item);
        if (/^[0-9a-fA-F]{64}$/.test(text)) {
          const tx = ctx.chain.mempool.get(text.toLowerCase());
          if (!tx)
            throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, `Transaction ${text} not in mempool.`);
          txs.push(tx);
          continue;
        }
        try {
          txs.push(parseTransaction(Buffer.from(text, "hex")));
        } catch {
          throw new RpcError(
            RPC_DESERIALIZATION_ERROR,
            `Transaction decode failed for ${text}. Make sure the tx has at least one input.`,
          );
        }
      }
      // Core builds the block from an empty mempool and appends these: the coinbase pays the
      // subsidy alone, without their fees.
      const made = produceBlock(ctx.chain, script, txs, 0n);
      ctx.chain.tipChanged();
      return { hash: made.block.hash };
    },
  };
}
