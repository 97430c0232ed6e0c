/**
 * Whether a cost grows linearly with its input: the same work timed at a size and at GROWTH times
 * it. Linear work takes about GROWTH times as long, quadratic work GROWTH² (64) times; the bound
 * between them, LINEAR_RATIO_MAX, is three times the linear figure, so that a loaded two-core
 * machine does not fail it and quadratic work always does. Each size is timed several times,
 * alternately (so that a burst of load meets both), and the least time of each is kept; more
 * times while the ratio is over the bound. Times are of the process's CPU (the gateway under test
 * runs in it too), not of the wall clock.
 */

export const GROWTH = 8;
export const LINEAR_RATIO_MAX = 24;
/** Timings under this are read as this: at that scale a ratio says nothing but timer noise. */
const FLOOR_MS = 1;

export interface Growth {
  /** Least time at the size and at GROWTH times it, in ms. */
  small: number;
  large: number;
  /** large / small, both floored at FLOOR_MS. */
  ratio: number;
}

/** How `work`'s time grows from `size` to GROWTH × `size` (each run once first, to warm up). */
export async function growthOf(
  work: (size: number) => unknown,
  size: number,
  reps = 7,
): Promise<Growth> {
  // CPU time, not wall time: on a machine shared with other processes a long run is sliced among
  // them and a short one is not, which inflates ratios of wall times.
  const timed = async (n: number) => {
    const started = process.cpuUsage();
    await work(n);
    const used = process.cpuUsage(started);
    return (used.user + used.system) / 1000;
  };
  await timed(size);
  await timed(size * GROWTH);
  let small = Number.POSITIVE_INFINITY;
  let large = Number.POSITIVE_INFINITY;
  const ratio = () => Math.max(large, FLOOR_MS) / Math.max(small, FLOOR_MS);
  // Up to three times the timings while the ratio is over the bound: on a loaded machine whose
  // memory is slow the larger input's least time can still be high after a few; more timings
  // only lower each least time, and quadratic work stays near GROWTH².
  for (let i = 0; i < reps || (ratio() >= LINEAR_RATIO_MAX && i < 3 * reps); i++) {
    small = Math.min(small, await timed(size));
    large = Math.min(large, await timed(size * GROWTH));
  }
  return { small, large, ratio: ratio() };
}
