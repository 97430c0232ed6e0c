/**
 * A kept answer whose transactions say their confirmations (src/routes/gateway/answers/): its data text
 * is kept with a placeholder where each confirmations number was, and the number is written in on
 * each hit from the tip then (tip − height + 1), as the transaction cache writes Core's verbose
 * answers. The placeholder is a string no answer of ours holds (a NUL inside), written as JSON
 * writes it; an answer whose text holds it anywhere else is not kept (the count would not match).
 */
export const CONFIRMATIONS_MARK = "\u0000confirmations\u0000";
const MARK_TEXT = JSON.stringify(CONFIRMATIONS_MARK);

/** The template with these numbers in its placeholders, in order; null if their counts differ. */
export function fillConfirmations(template: string, values: readonly number[]): string | null {
  const parts = template.split(MARK_TEXT);
  if (parts.length !== values.length + 1) return null;
  let out = parts[0] as string;
  for (let i = 0; i < values.length; i++) out += String(values[i]) + parts[i + 1];
  return out;
}
