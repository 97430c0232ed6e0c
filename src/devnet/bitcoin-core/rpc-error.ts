import type { RpcErrorObject } from "../../protocol/json/types.ts";

/** A JSON-RPC error raised inside devnet's Core, as Core throws JSONRPCError(code, message). */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }

  toObject(): RpcErrorObject {
    return { code: this.code, message: this.message };
  }
}
