import { Readable } from "node:stream";
import type { FastifyReply } from "fastify";
import { type GatewayError, httpStatusOf } from "../protocol/errors/codes.ts";
import { graphqlErrorObject, plainErrorObject, rpcErrorObject } from "../protocol/errors/render.ts";
import { stringifyJson } from "../protocol/json/json.ts";
import type { JsonRpcId } from "../protocol/json/types.ts";

export interface HttpReply {
  status: number;
  /** A JSON value (serialized with number literals kept), or bytes already encoded. */
  body: unknown;
  /** When set, `body` is sent as these bytes with the headers given (content-type included). */
  raw?: Uint8Array;
  headers?: Record<string, string>;
  /**
   * A body written as it comes (a subscription's Server-Sent Events), with the headers given: a
   * web stream is opened with an SSE comment line; a Node stream is written as it is.
   */
  stream?: ReadableStream<Uint8Array> | Readable;
  /**
   * A large JSON body in parts, written one at a time as the connection takes them (the headers
   * given): never joined into one string and one buffer, and the event loop runs between parts.
   */
  parts?: () => Iterable<string>;
}

/** The body of a reply in parts, joined (what must be kept whole: an idempotent answer). */
export function joinedParts(parts: () => Iterable<string>): Buffer {
  return Buffer.from(replyText({ status: 200, body: null, parts }));
}

/** A JSON reply's body as one text (a WebSocket message is one frame, whatever its size). */
export function replyText(r: HttpReply): string {
  if (r.raw) return Buffer.from(r.raw.buffer, r.raw.byteOffset, r.raw.byteLength).toString("utf8");
  if (r.parts) return [...r.parts()].join("");
  return stringifyJson(r.body);
}

/**
 * Sends a reply as the gateway always has: JSON with number literals kept and content-type
 * `application/json` as is (bytes, so the framework adds no charset), or the bytes given.
 */
export function sendReply(reply: FastifyReply, r: HttpReply): FastifyReply {
  reply.code(r.status);
  if (r.stream) {
    if (r.headers) reply.headers(r.headers);
    return reply.send(r.stream instanceof Readable ? r.stream : openedStream(r.stream));
  }
  if (r.parts) {
    reply.header("content-type", "application/json");
    if (r.headers) reply.headers(r.headers);
    return reply.send(Readable.from(r.parts(), { objectMode: false, encoding: "utf8" }));
  }
  if (!r.raw) {
    reply.header("content-type", "application/json");
    if (r.headers) reply.headers(r.headers);
    return reply.send(Buffer.from(stringifyJson(r.body)));
  }
  if (r.headers) reply.headers(r.headers);
  // No bytes and no type (an empty answer): nothing, as node sent it; the framework would call
  // an empty buffer application/octet-stream.
  if (r.raw.byteLength === 0 && !reply.hasHeader("content-type")) return reply.send();
  return reply.send(Buffer.from(r.raw.buffer, r.raw.byteOffset, r.raw.byteLength));
}

/**
 * A stream's bytes as a Node stream, after an SSE comment line: the headers go out with it at
 * once, so the client knows its subscription is open before the first event (Node writes headers
 * with the first byte). Read through the stream's own reader (a framework's stream need not be
 * Node's). When the client goes away the framework destroys this stream, and the source is
 * cancelled at once — even while it waits for its next chunk — so it stops (and stops charging).
 */
function openedStream(stream: ReadableStream<Uint8Array>): Readable {
  const reader = stream.getReader();
  let finished = false;
  const body = new Readable({
    read() {
      reader.read().then(
        (chunk) => {
          if (chunk.done) {
            finished = true;
            body.push(null);
          } else body.push(chunk.value);
        },
        (err: unknown) => body.destroy(err instanceof Error ? err : new Error(String(err))),
      );
    },
    destroy(err, callback) {
      if (finished) return callback(err);
      reader.cancel().then(
        () => callback(err),
        () => callback(err),
      );
    },
  });
  body.push(Buffer.from(":\n\n"));
  return body;
}

/** A page, a script or a file: its content type and bytes, sent as they are. */
export function sendText(
  reply: FastifyReply,
  status: number,
  type: string,
  body: string,
  headers: Record<string, string> = {},
): FastifyReply {
  return reply.code(status).header("content-type", type).headers(headers).send(Buffer.from(body));
}

/** A gateway failure on a JSON-RPC route: the protocol's envelope, our status. */
export function jsonRpcFailure(error: GatewayError, id: JsonRpcId = null): HttpReply {
  return {
    status: httpStatusOf(error.code),
    body: { jsonrpc: "2.0", id, error: rpcErrorObject(error) },
  };
}

/**
 * A gateway failure on a plain-text route (Esplora's REST API, which refuses in text): the code
 * and message as one line, our status, so a client that shows the body shows why.
 */
export function textFailure(error: GatewayError): HttpReply {
  return textReply(httpStatusOf(error.code), `${error.code}: ${error.message}`);
}

/** A plain-text answer. */
export function textReply(status: number, text: string): HttpReply {
  return {
    status,
    body: null,
    raw: Buffer.from(text),
    headers: { "content-type": "text/plain; charset=utf-8" },
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
