/**
 * Billing cycles: monthly from the account's creation day (UTC). A cycle that starts on the 31st
 * starts on the last day of shorter months, as card billing does.
 */
export interface Cycle {
  index: number;
  start: Date;
  end: Date;
}

function anchorIn(year: number, month: number, anchor: Date): Date {
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return new Date(
    Date.UTC(
      year,
      month,
      Math.min(anchor.getUTCDate(), lastDay),
      anchor.getUTCHours(),
      anchor.getUTCMinutes(),
      anchor.getUTCSeconds(),
      anchor.getUTCMilliseconds(),
    ),
  );
}

/** The cycle number `index` (0 = the first) of an account created at `anchor`. */
export function cycleAt(anchor: Date, index: number): Cycle {
  const months = anchor.getUTCMonth() + index;
  const start = anchorIn(
    anchor.getUTCFullYear() + Math.floor(months / 12),
    ((months % 12) + 12) % 12,
    anchor,
  );
  const next = anchor.getUTCMonth() + index + 1;
  const end = anchorIn(
    anchor.getUTCFullYear() + Math.floor(next / 12),
    ((next % 12) + 12) % 12,
    anchor,
  );
  return { index, start, end };
}

/** The cycle containing `at`. */
export function cycleContaining(anchor: Date, at: Date): Cycle {
  let index = Math.max(
    0,
    (at.getUTCFullYear() - anchor.getUTCFullYear()) * 12 +
      at.getUTCMonth() -
      anchor.getUTCMonth() -
      1,
  );
  let cycle = cycleAt(anchor, index);
  while (cycle.end <= at) cycle = cycleAt(anchor, ++index);
  return cycle;
}
