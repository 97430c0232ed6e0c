/** An RPCError raised by a handler; `disconnect` is aiorpcx's ReplyAndDisconnect. */
export class ElectrumRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly disconnect = false,
  ) {
    super(message);
  }
}
