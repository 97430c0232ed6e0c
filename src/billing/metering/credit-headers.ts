/** The X-Credits-* headers every priced route answers with. */
export function creditHeaders(
  estimated: number,
  charged: number,
  balance: number,
): Record<string, string> {
  return {
    "x-credits-estimated": String(estimated),
    "x-credits-charged": String(charged),
    "x-credits-balance": String(balance),
  };
}
