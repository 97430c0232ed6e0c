import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse, stringify } from "lossless-json";
import { describe, expect, it } from "vitest";
import { STDIN_BYTES_MAX } from "../../src/cli/stdin.ts";
import { BLOCKS_DIR, ORACLE_DIR, TXS_DIR } from "../bitcoin/chain-data.ts";
import { blockgate, blockgateOnTerminal, hasScript } from "../support/spawn.ts";
import { runDecode } from "./run-decode.ts";

// `blockgate decode -` as a user runs it: a real process, the hex piped to its standard input,
// for what is about the process (a text too big for argv, empty input, the size limit, a
// terminal). What the command makes of the text it read is the same function in this process
// (runDecode), proved byte for byte against the process by the first test: a process start costs
// more than the decoding.

const canon = (text: string) => stringify(parse(text));

const blockOracle = parse(
  readFileSync(join(BLOCKS_DIR, "bitcoin_mainnet_951658.json"), "utf8"),
) as Record<string, unknown> & { block: string };

/** Core's getblock answer without what the bytes cannot tell (and without the raw block). */
function blockOracleFromBytes(): Record<string, unknown> {
  const chain = ["confirmations", "height", "mediantime", "chainwork", "nextblockhash", "block"];
  return Object.fromEntries(Object.entries(blockOracle).filter(([k]) => !chain.includes(k)));
}

describe("blockgate decode - (standard input)", () => {
  it("decodes a 500 kB transaction, too big for argv, exactly as the in-process decoder", async () => {
    // Mainnet 73be398c…: one input whose witness has 500,003 items; 500,142 bytes, 1,000,284 hex
    // digits (plus the file's newline). Linux refuses a single argument over 128 KiB.
    const text = readFileSync(join(TXS_DIR, "huge_witness.hex"), "utf8");
    expect(text.length).toBeGreaterThan(132 * 1024 * 2);
    const out = await blockgate(["decode", "-"], {}, { input: text });
    expect(out.stderr).toBe("");
    expect(out.code).toBe(0);
    const inProcess = runDecode([text.trim()]);
    expect(inProcess.code).toBe(0);
    expect(out.stdout).toBe(`${inProcess.text}\n`);
    const tx = JSON.parse(out.stdout) as {
      txid: string;
      size: number;
      weight: number;
      vin: { txinwitness: string[] }[];
    };
    expect(tx.txid).toBe("73be398c4bdc43709db7398106609eea2a7841aaf3a4fa2000dc18184faa2a7e");
    expect([tx.size, tx.weight, tx.vin[0]!.txinwitness.length]).toEqual([
      500_142, 500_436, 500_003,
    ]);
  }, 60_000);

  it("gives Core's decoderawtransaction for a transaction Core decoded (literals kept)", async () => {
    const dir = join(ORACLE_DIR, "getrawtransaction-verbosity2");
    const txid = "d549052f9c80343ba8efd338cae13ea4768f8da6f96a310edd3a4aeb67057a7c";
    const hex = readFileSync(join(dir, `${txid}.hex`), "utf8");
    // getrawtransaction 2 is TxToUniv with undo data, plus block fields; decoderawtransaction has
    // neither, and no hex.
    const oracle = parse(readFileSync(join(dir, `${txid}.json`), "utf8")) as Record<
      string,
      unknown
    >;
    const want: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(oracle)) {
      if (["fee", "hex", "blockhash", "confirmations", "time", "blocktime"].includes(k)) continue;
      want[k] =
        k === "vin" ? (v as Record<string, unknown>[]).map(({ prevout: _, ...rest }) => rest) : v;
    }
    const out = runDecode(["-"], `  ${hex}\n\n`);
    expect(out.code).toBe(0);
    expect(canon(out.text)).toBe(stringify(want));
  });

  it("decodes a block: getblock's fields the bytes determine, as Core printed them", async () => {
    const input = `\n${blockOracle.block}\n`;
    const v1 = runDecode(["-", "--verbosity", "1"], input);
    expect(v1.code).toBe(0);
    expect(canon(v1.text)).toBe(stringify(blockOracleFromBytes()));

    const v2 = runDecode(["-"], input);
    expect(v2.code).toBe(0);
    const { tx, ...header } = parse(v2.text) as Record<string, unknown> & {
      tx: { txid: string; hex: string }[];
    };
    const { tx: txids, ...oracleHeader } = blockOracleFromBytes() as { tx: string[] };
    expect(stringify(header)).toBe(stringify(oracleHeader));
    expect(tx.map((t) => t.txid)).toEqual(txids);
    expect(tx.map((t) => t.hex).join("")).toBe(blockOracle.block.slice(166));
  }, 60_000);

  it("refuses what is not hex, odd-length hex and empty input: one line, exit 2", async () => {
    const cases: [string, string][] = [
      ["0100zz00\n", 'decode: standard input is not hex ("z" at position 5)'],
      [
        "01000\n",
        "decode: standard input has an odd number of hex digits (5): a byte is two digits",
      ],
      ["", "decode: standard input is empty: give the hex of a transaction or block"],
    ];
    expect(cases.map(([input]) => runDecode(["-"], input))).toEqual(
      cases.map(([, message]) => ({ text: message, code: 2 })),
    );
    // As a process, on its standard error with nothing on standard output: the empty input.
    const empty = await blockgate(["decode", "-"], {}, { input: "" });
    expect({ code: empty.code, stderr: empty.stderr, stdout: empty.stdout }).toEqual({
      code: 2,
      stderr: `${cases[2]![1]}\n`,
      stdout: "",
    });
  }, 60_000);

  it(`stops reading past ${STDIN_BYTES_MAX} bytes`, async () => {
    const out = await blockgate(
      ["decode", "-"],
      {},
      { input: "00".repeat(STDIN_BYTES_MAX / 2 + 1) },
    );
    expect(out.code).toBe(2);
    expect(out.stderr).toBe(`decode: standard input: more than ${STDIN_BYTES_MAX} bytes\n`);
  });

  it.skipIf(!hasScript)(
    "with a terminal as standard input, prints the usage and exits 2 instead of waiting",
    async () => {
      const out = await blockgateOnTerminal(["decode", "-"], {});
      expect(out.code).toBe(2);
      // script(1) merges the terminal's output into its own stdout, with CRLF line ends.
      expect(out.stdout.replaceAll("\r\n", "\n")).toBe(
        "blockgate decode: standard input is a terminal: pipe the hex in\n" +
          "usage: blockgate decode <hex | -> [--network NAME] [--verbosity 1|2]\n" +
          "(blockgate decode --help for its options and an example)\n",
      );
    },
  );
});
