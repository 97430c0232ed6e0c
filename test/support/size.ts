/**
 * Sizes of the scenarios that are heavy by their size alone (calls sent, cases generated,
 * repetitions): small in `npm test`, which must stay fast on a two-core machine, and full in
 * `npx tsx bench/full-size.ts`, which runs the same files with BLOCKGATE_FULL_SIZE=1. A scenario
 * proves the same at either size; the full one looks harder for what is rare.
 */
export const FULL_SIZE = process.env.BLOCKGATE_FULL_SIZE === "1";

/** `small` in the suite, `full` in bench/full-size.ts. */
export const sized = (small: number, full: number): number => (FULL_SIZE ? full : small);
