/**
 * A header the gateway has checked itself: linked to its parent, its proof of work meeting the
 * target the network's rules require at its height, its time after the median of the eleven
 * before it. What answers are checked against.
 */
export interface VerifiedHeader {
  readonly height: number;
  /** Display (big-endian) hex, as Core prints it. */
  readonly hash: string;
  /** The 80 header bytes, hex. */
  readonly header: string;
  /** Display hex. */
  readonly merkleRoot: string;
  /** The header's time (Unix seconds). */
  readonly time: number;
  /** Cumulative work up to and including this header (Core's nChainWork). */
  readonly chainwork: bigint;
}
