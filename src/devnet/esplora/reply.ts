/** One answer of devnet's Esplora: JSON, plain text, or bytes, with its status. */
export interface EsploraReply {
  status: number;
  type: "application/json" | "text/plain" | "application/octet-stream";
  body: string | Uint8Array;
}

export const json = (value: unknown): EsploraReply => ({
  status: 200,
  type: "application/json",
  body: JSON.stringify(value),
});

export const text = (body: string, status = 200): EsploraReply => ({
  status,
  type: "text/plain",
  body,
});

export const bytes = (body: Uint8Array): EsploraReply => ({
  status: 200,
  type: "application/octet-stream",
  body,
});

/** electrs' HttpError::not_found. */
export const notFound = (message: string): EsploraReply => text(message, 404);
/** electrs' HttpError::from(String). */
export const badRequest = (message: string): EsploraReply => text(message, 400);

/**
 * A Rust `f64` (or `f32`, given `single`) as serde_json writes it: the shortest text that reads
 * back as the same value, with `.0` on a whole number.
 */
export function rustFloat(value: number, single = false): string {
  let shortest = String(value);
  if (single) {
    for (let digits = 1; digits <= 9; digits++) {
      const candidate = Number(value.toPrecision(digits));
      if (Math.fround(candidate) === value) {
        shortest = String(candidate);
        break;
      }
    }
  }
  return /^-?\d+$/.test(shortest) ? `${shortest}.0` : shortest;
}
