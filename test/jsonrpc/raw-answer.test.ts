import { describe, expect, it } from "vitest";
import { RawJsonText } from "../../src/protocol/json/json.ts";
import {
  answerForReply,
  rawResultAnswer,
  resultScalars,
} from "../../src/protocol/json/raw-answer.ts";
import { promotedBy } from "../support/promoted.ts";

describe("rawResultAnswer", () => {
  const text = '{"txid":"ab","hex":"0100","vin":[{"coinbase":"04"}],"size":2}';

  it("reads as a plain answer: result parsed once, seen by a spread and by JSON.stringify", () => {
    const answer = rawResultAnswer(text) as { result: unknown };
    expect(answer.result).toEqual({
      txid: "ab",
      hex: "0100",
      vin: [{ coinbase: "04" }],
      size: expect.anything(),
    });
    expect(answer.result).toBe(answer.result);
    expect(Object.keys(answer)).toEqual(["result"]);
    expect(JSON.parse(JSON.stringify(answer)).result.txid).toBe("ab");
    expect({ ...answer }.result).toBe(answer.result);
  });

  it("is replied with its own text; a copy of it is not taken for it", () => {
    const answer = rawResultAnswer(text);
    expect(answerForReply(answer)).toEqual({ result: new RawJsonText(text) });
    const copy = { ...answer, result: "other" };
    expect(answerForReply(copy)).toBe(copy);
    expect(answerForReply({ result: 1 })).toEqual({ result: 1 });
  });

  it("gives its scalar members from the text's spans without parsing the rest", () => {
    const answer = rawResultAnswer(text, [
      { key: "txid", start: 8, end: 12 },
      { key: "hex", start: 19, end: 25 },
    ]) as { result: unknown };
    expect(resultScalars(answer as { result: never })).toEqual({ txid: "ab", hex: "0100" });
    // Once parsed, the parsed result is what is read.
    expect(answer.result).toMatchObject({ size: expect.anything() });
    expect(resultScalars(answer as { result: never })).toBe(answer.result);
  });

  it("lets answers nobody holds die young, their texts and parsed results with them", () => {
    // Twenty thousand answers of ~200 bytes each, every one read: about 8 MB made and let go of.
    // Kept in a WeakMap, or behind a getter closure of their own, they were all promoted.
    let read = 0;
    const work = () => {
      for (let r = 0; r < 400; r++) {
        for (let k = 0; k < 50; k++) {
          const answer = rawResultAnswer(JSON.stringify(`${"ab".repeat(100)}${r}:${k}`));
          read += String((answer as { result: unknown }).result).length;
        }
      }
    };
    work(); // once first: compiling it allocates in the old generation too
    const promoted = promotedBy(work);
    // Every answer read in full: twice over, each 200 characters and its "r:k".
    let expected = 0;
    for (let r = 0; r < 400; r++) for (let k = 0; k < 50; k++) expected += 200 + `${r}:${k}`.length;
    expect(read).toBe(2 * expected);
    expect(promoted).toBeLessThan(1_000_000);
  });
});
