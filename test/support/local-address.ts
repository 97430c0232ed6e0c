import { request } from "node:http";

/** An answer to a POST made from a chosen local address, with how long it took. */
export interface AddressedAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  json: { error?: { code: number; message: string; data?: unknown } };
  ms: number;
}

/**
 * POSTs a JSON body from `localAddress`: on Linux all of 127.0.0.0/8 is loopback, so a test can
 * be two clients (127.0.0.1 and 127.0.0.2) for per-address rules. fetch cannot pick its address.
 */
export function postFrom(
  url: string,
  body: unknown,
  localAddress: string,
): Promise<AddressedAnswer> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: "POST", localAddress, headers: { "content-type": "application/json" } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            json: JSON.parse(Buffer.concat(chunks).toString("utf8")),
            ms: performance.now() - started,
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}
