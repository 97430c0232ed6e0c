import type { Json, JsonNumber } from "./json.ts";

export type JsonRpcId = string | number | JsonNumber | null;

export interface RpcErrorObject {
  code: number;
  message: string;
  data?: Json;
}

/** What an upstream said about one call: a result or a JSON-RPC error, both charged. */
export type RpcAnswer = { result: Json } | { error: RpcErrorObject };

export interface RpcCall {
  method: string;
  params: Json[];
}

/** A call's parameters after its method's checks: positional and ready to forward, or refused. */
export type Checked =
  | {
      ok: true;
      params: Json[];
      /** The form of the method the call asks for, priced apart when configured (getblock/2). */
      variant?: string;
    }
  | { ok: false; error: RpcErrorObject };
