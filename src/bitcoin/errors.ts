/**
 * Thrown for any byte string that is not a valid serialization (truncated, trailing bytes,
 * non-canonical compact sizes, absurd counts). `offset` is where the reader stood when it gave up.
 */
export class DecodeError extends Error {
  override readonly name = "DecodeError";
  readonly offset: number;

  constructor(message: string, offset = -1) {
    super(offset >= 0 ? `${message} (at byte ${offset})` : message);
    this.offset = offset;
  }
}
