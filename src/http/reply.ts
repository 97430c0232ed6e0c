import type { ServerResponse } from "node:http";
import { type GatewayError, httpStatusOf } from "../errors/codes.ts";
import { graphqlErrorObject, plainErrorObject, rpcErrorObject } from "../errors/render.ts";
import { stringifyJson } from "../jsonrpc/json.ts";
import type { JsonRpcId } from "../jsonrpc/types.ts";

export interface HttpReply {
  status: number;
  /** A JSON value (serialized with number literals kept), or bytes already encoded. */
  body: unknown;
  /** When set, `body` is sent as these bytes with the headers given (content-type included). */
  raw?: Uint8Array;
  headers?: Record<string, string>;
}

export function sendJson(res: ServerResponse, reply: HttpReply): void {
  if (reply.raw) {
    res.writeHead(reply.status, { "content-length": reply.raw.byteLength, ...reply.headers });
    res.end(reply.raw);
    return;
  }
  const text = stringifyJson(reply.body);
  res.writeHead(reply.status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    ...reply.headers,
  });
  res.end(text);
}

/** A gateway failure on a JSON-RPC route: the protocol's envelope, our status. */
export function jsonRpcFailure(error: GatewayError, id: JsonRpcId = null): HttpReply {
  return {
    status: httpStatusOf(error.code),
    body: { jsonrpc: "2.0", id, error: rpcErrorObject(error) },
  };
}

/** A gateway failure outside any protocol (unknown route, health). */
export function plainFailure(error: GatewayError): HttpReply {
  return { status: httpStatusOf(error.code), body: plainErrorObject(error) };
}

/**
 * A gateway failure on a GraphQL route (unified or graph mirror): GraphQL's error shape, our
 * status. The failures that reach here are the gateway's own, spelled alike in both APIs.
 */
export function graphqlFailure(error: GatewayError): HttpReply {
  return { status: httpStatusOf(error.code), body: { errors: [graphqlErrorObject(error)] } };
}
