import { createHash } from "node:crypto";

/**
 * Stable paging over an address's history or unspent outputs (decision 0044). A cursor is not an
 * index: it says which entries were served, by position in the chain, so that a block mined or
 * replaced between pages neither repeats nor skips an entry that stayed where it was.
 *
 * The order: confirmed entries by height (within a height, as listed: the server's block order for
 * history, txid then vout for outputs), then the mempool's by key. A cursor holds
 * - `low` and `seen`: every confirmed entry below height `low` was served, and of those since, the
 *   ones whose key digests are in `seen` (by key, whatever height they are at now: an entry a
 *   reorganisation moved is not served again, and one new in a replaced block is served). `seen`
 *   keeps the last REORG_WINDOW heights served, at most SEEN_MAX digests (the cursor's size);
 * - `mark`, once a page reached the mempool: of the entries since (in the mempool, or confirmed
 *   above `mark.h`, the highest height then) the ones keyed up to `mark.key` were served — a
 *   mempool entry served, then mined, is not served again.
 */
export interface Cursor {
  kind: CursorKind;
  low: number;
  /** Digest → the height it was served at. */
  seen: ReadonlyMap<string, number>;
  mark: { h: number; key: string } | null;
}

/** Which list a cursor pages: an address's history, or its unspent outputs. */
export type CursorKind = "history" | "utxos";

/** An entry as the pager sees it: its height (null in the mempool) and its unique order key. */
export interface Placed {
  height: number | null;
  key: string;
}

export interface Page<E extends Placed> {
  entries: E[];
  /** The cursor after each entry of the page (computed when asked). */
  cursorAfter(index: number): string;
  /** The cursor after the page: after its last entry, or the one given for an empty page. */
  endCursor: string | null;
  hasNextPage: boolean;
}

const VERSION = 1;
const DIGEST_HEX = 12;
/** Heights below the newest served that a cursor remembers: reorganisations deeper are rare. */
export const REORG_WINDOW = 10;
/** Digests a cursor holds at most (a few kB once encoded); the newest height's are always kept. */
export const SEEN_MAX = 256;

const digest = (key: string) => createHash("sha256").update(key).digest("hex").slice(0, DIGEST_HEX);

/** Where paging starts: nothing served. */
export function startCursor(kind: CursorKind): Cursor {
  return { kind, low: 0, seen: new Map(), mark: null };
}

/** Confirmed entries by height, in the order given within one; then the mempool's by key. */
export function chainOrder<E extends Placed>(entries: readonly E[]): E[] {
  const confirmed = entries.filter((e) => e.height !== null);
  const mempool = entries.filter((e) => e.height === null);
  confirmed.sort((a, b) => a.height! - b.height!);
  mempool.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return [...confirmed, ...mempool];
}

/** Whether the cursor says `e` was served on an earlier page. */
export function served(c: Cursor, e: Placed): boolean {
  if (e.height !== null && e.height < c.low) return true;
  if (c.seen.has(digest(e.key))) return true;
  const { mark } = c;
  return mark !== null && (e.height === null || e.height > mark.h) && e.key <= mark.key;
}

/**
 * The cursor once `e` is served too. Reaching the mempool marks every confirmed entry of the list
 * (`topHeight`: its highest) as served, and the mempool up to `e`.
 */
export function advance(c: Cursor, e: Placed, topHeight: number): Cursor {
  if (e.height === null) {
    const h = Math.max(topHeight, c.mark?.h ?? -1);
    return { ...window(c, h), mark: { h, key: e.key } };
  }
  const next = window(c, e.height);
  const seen = new Map(next.seen);
  seen.set(digest(e.key), e.height);
  return { ...next, seen };
}

/** The cursor with `seen` cut to the heights near `height`, and to SEEN_MAX digests. */
function window(c: Cursor, height: number): Cursor {
  let low = Math.max(c.low, height - REORG_WINDOW);
  const kept = () => [...c.seen].filter(([, h]) => h >= low);
  let seen = kept();
  while (seen.length >= SEEN_MAX && low < height) {
    low = Math.min(Math.min(...seen.map(([, h]) => h)) + 1, height);
    seen = kept();
  }
  return { ...c, low, seen: new Map(seen) };
}

/**
 * The page of `first` entries of `ordered` (chainOrder) not yet served by `after`, with the
 * cursors after them.
 */
export function pageAfter<E extends Placed>(
  ordered: readonly E[],
  after: Cursor,
  first: number,
  given: string | null,
): Page<E> {
  const rest = ordered.filter((e) => !served(after, e));
  return pageOf(ordered, after, rest.slice(0, first), rest.length > first, given);
}

/** The page of `ordered` from `offset` (the older offset form), with cursors as if paged there. */
export function pageAtOffset<E extends Placed>(
  kind: CursorKind,
  ordered: readonly E[],
  offset: number,
  limit: number,
): Page<E> {
  const top = topHeightOf(ordered);
  let start = startCursor(kind);
  for (const e of ordered.slice(0, offset)) start = advance(start, e, top);
  const entries = ordered.slice(offset, offset + limit);
  return pageOf(ordered, start, entries, offset + limit < ordered.length, null);
}

function pageOf<E extends Placed>(
  ordered: readonly E[],
  from: Cursor,
  entries: E[],
  hasNextPage: boolean,
  given: string | null,
): Page<E> {
  const top = topHeightOf(ordered);
  const cursorAfter = (index: number) => {
    let c = from;
    for (const e of entries.slice(0, index + 1)) c = advance(c, e, top);
    return encodeCursor(c);
  };
  const endCursor = entries.length > 0 ? cursorAfter(entries.length - 1) : given;
  return { entries, cursorAfter, endCursor, hasNextPage };
}

function topHeightOf(ordered: readonly Placed[]): number {
  let top = -1;
  for (const e of ordered) if (e.height !== null && e.height > top) top = e.height;
  return top;
}

/** The cursor as clients hold it: opaque, base64url. */
export function encodeCursor(c: Cursor): string {
  const byHeight = new Map<number, string>();
  for (const [d, h] of c.seen) byHeight.set(h, (byHeight.get(h) ?? "") + d);
  const seen = [...byHeight].flat();
  const body = [VERSION, c.kind, c.low, seen, c.mark?.h ?? null, c.mark?.key ?? null];
  return Buffer.from(JSON.stringify(body)).toString("base64url");
}

/** A cursor a client gave back, or null when it is not one of `kind`'s. */
export function decodeCursor(text: string, kind: CursorKind): Cursor | null {
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
  } catch {
    return null;
  }
  if (!Array.isArray(body) || body.length !== 6) return null;
  const [version, k, low, seenList, markH, markKey] = body as unknown[];
  if (version !== VERSION || k !== kind || !Number.isSafeInteger(low)) return null;
  const seen = seenOf(seenList);
  const marked = Number.isSafeInteger(markH) && typeof markKey === "string";
  if (!seen || (!marked && (markH !== null || markKey !== null))) return null;
  const mark = marked ? { h: markH as number, key: markKey as string } : null;
  return { kind, low: low as number, seen, mark };
}

/** `[height, digests, height, digests, …]` read back, or null when it is not that. */
function seenOf(list: unknown): Map<string, number> | null {
  if (!Array.isArray(list) || list.length % 2 !== 0) return null;
  const seen = new Map<string, number>();
  for (let i = 0; i < list.length; i += 2) {
    const [h, digests] = [list[i], list[i + 1]];
    if (!Number.isSafeInteger(h) || typeof digests !== "string") return null;
    if (!new RegExp(`^(?:[0-9a-f]{${DIGEST_HEX}})+$`).test(digests)) return null;
    for (const d of digests.match(new RegExp(`.{${DIGEST_HEX}}`, "g"))!) seen.set(d, h as number);
  }
  return seen;
}
