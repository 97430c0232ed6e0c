/**
 * Billing cycles, anchored at the account's creation instant (UTC): every `length` months by
 * default (monthly from the creation day), or every `length` days. A monthly cycle anchored on
 * the 31st starts on the last day of shorter months, as card billing does.
 */
export interface CycleRule {
  unit: "month" | "day";
  length: number;
}

export interface Cycle {
  index: number;
  start: Date;
  end: Date;
}

export const MONTHLY: CycleRule = { unit: "month", length: 1 };

const DAY_MS = 86_400_000;

function monthsAfter(anchor: Date, months: number): Date {
  const total = anchor.getUTCMonth() + months;
  const year = anchor.getUTCFullYear() + Math.floor(total / 12);
  const month = ((total % 12) + 12) % 12;
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

function boundary(anchor: Date, rule: CycleRule, index: number): Date {
  return rule.unit === "day"
    ? new Date(anchor.getTime() + index * rule.length * DAY_MS)
    : monthsAfter(anchor, index * rule.length);
}

/** Cycle number `index` (0 = the first) of an account created at `anchor`. */
export function cycleAt(anchor: Date, index: number, rule: CycleRule = MONTHLY): Cycle {
  return { index, start: boundary(anchor, rule, index), end: boundary(anchor, rule, index + 1) };
}

/** The cycle containing `at` (the first one for instants before the anchor). */
export function cycleContaining(anchor: Date, at: Date, rule: CycleRule = MONTHLY): Cycle {
  const elapsed = at.getTime() - anchor.getTime();
  const approx =
    rule.unit === "day"
      ? Math.floor(elapsed / (rule.length * DAY_MS))
      : Math.floor(
          ((at.getUTCFullYear() - anchor.getUTCFullYear()) * 12 +
            at.getUTCMonth() -
            anchor.getUTCMonth()) /
            rule.length,
        ) - 1;
  let index = Math.max(0, approx);
  while (index > 0 && cycleAt(anchor, index, rule).start > at) index--;
  while (cycleAt(anchor, index, rule).end <= at) index++;
  return cycleAt(anchor, index, rule);
}
