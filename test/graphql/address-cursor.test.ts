// The cursor's rules on made-up lists: what a page after it holds when blocks come and go.
import { describe, expect, it } from "vitest";
import {
  type Cursor,
  chainOrder,
  decodeCursor,
  encodeCursor,
  type Page,
  type Placed,
  pageAfter,
  pageAtOffset,
  SEEN_MAX,
  startCursor,
} from "../../src/routes/gateway/types/address-cursor.ts";

const tx = (n: number) => n.toString(16).padStart(64, "0");
const at = (height: number | null, n: number): Placed => ({ height, key: tx(n) });

/** Pages `list()` through with pages of `first`, calling `between(page)` after each page. */
function pageAll(list: () => Placed[], first: number, between: (page: number) => void = () => {}) {
  const served: string[] = [];
  let after: string | null = null;
  for (let page = 0; page < 100; page++) {
    const cursor: Cursor =
      after === null ? startCursor("history") : decodeCursor(after, "history")!;
    const got: Page<Placed> = pageAfter(chainOrder(list()), cursor, first, after);
    served.push(...got.entries.map((e) => e.key));
    after = got.endCursor;
    if (!got.hasNextPage) return served;
    between(page);
  }
  throw new Error("paging never ended");
}

describe("address cursors", () => {
  it("page a still list once, in chain order: confirmed by height, mempool by key", () => {
    const list = [at(null, 9), at(2, 5), at(1, 7), at(null, 3), at(2, 4), at(1, 8)];
    expect(pageAll(() => list, 2)).toEqual([tx(7), tx(8), tx(5), tx(4), tx(3), tx(9)]);
  });

  it("a block mined between pages: mempool entries confirmed, served once, new ones too", () => {
    let list = [at(1, 1), at(2, 2), at(3, 3), at(null, 10), at(null, 11), at(null, 12)];
    const served = pageAll(
      () => list,
      4,
      // After the page that ended at the first mempool entry: all three mined at 4, one new.
      () => {
        list = [at(1, 1), at(2, 2), at(3, 3), at(4, 10), at(4, 12), at(4, 11), at(4, 13)];
      },
    );
    expect(served.sort()).toEqual([1, 2, 3, 10, 11, 12, 13].map(tx).sort());
  });

  it("a block replaced between pages: entries that stayed are not served again", () => {
    let list = [at(1, 1), at(2, 2), at(3, 3), at(3, 4), at(3, 5), at(4, 6)];
    const served = pageAll(
      () => list,
      4,
      // The page ended inside height 3 (at 4); block 3 is replaced: 4 leaves it, 5 stays, 7 comes.
      () => {
        list = [at(1, 1), at(2, 2), at(3, 7), at(3, 3), at(3, 5), at(4, 6), at(5, 8)];
      },
    );
    expect(served).toEqual([1, 2, 3, 4, 7, 5, 6, 8].map(tx));
  });

  it("a reorganisation below the cursor: a new entry is served, a moved one is not again", () => {
    let list = [at(1, 1), at(2, 2), at(3, 3), at(4, 4), at(5, 5), at(6, 6)];
    const served = pageAll(
      () => list,
      5,
      // The page ended at height 5; blocks 4 and up are replaced: 4 moves up, 9 is new at 4.
      () => {
        list = [at(1, 1), at(2, 2), at(3, 3), at(4, 9), at(5, 4), at(5, 5), at(6, 6), at(7, 7)];
      },
    );
    expect(served).toEqual([1, 2, 3, 4, 5, 9, 6, 7].map(tx));
  });

  it("a cursor holds a bounded number of digests", () => {
    const list = chainOrder(Array.from({ length: 2 * SEEN_MAX }, (_, i) => at(1 + (i >> 2), i)));
    const whole = pageAfter(list, startCursor("utxos"), list.length, null);
    const end = decodeCursor(whole.endCursor!, "utxos")!;
    expect(end.seen.size).toBeLessThanOrEqual(SEEN_MAX);
    expect(pageAfter(list, end, 10, null).entries).toEqual([]);
  });

  it("an output spent between pages leaves no gap", () => {
    let list = [at(1, 1), at(1, 2), at(1, 3), at(1, 4)];
    const served = pageAll(
      () => list,
      2,
      () => {
        list = [at(1, 1), at(1, 3), at(1, 4)];
      },
    );
    expect(served).toEqual([1, 2, 3, 4].map(tx));
  });

  it("the offset form gives the same cursors as paging there", () => {
    const list = chainOrder([at(1, 1), at(2, 2), at(null, 3), at(null, 4)]);
    const byOffset = pageAtOffset("history", list, 2, 1);
    const byCursor = pageAfter(
      list,
      decodeCursor(pageAtOffset("history", list, 0, 2).endCursor!, "history")!,
      1,
      null,
    );
    expect(byOffset.endCursor).toBe(byCursor.endCursor);
    expect(byOffset.entries).toEqual(byCursor.entries);
  });

  it("refuses what is not a cursor of the list", () => {
    const c = encodeCursor(startCursor("history"));
    expect(decodeCursor(c, "history")).not.toBeNull();
    expect(decodeCursor(c, "utxos")).toBeNull();
    expect(decodeCursor("not a cursor", "history")).toBeNull();
    expect(
      decodeCursor(Buffer.from('[1,"history",1,"xyz",null,null]').toString("base64url"), "history"),
    ).toBeNull();
  });
});
