import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { genesisBlock } from "../../src/bitcoin/genesis.ts";
import {
  computeMerkleRoot,
  encodeSegwitAddress,
  parseBlock,
  sha256d,
  toHex,
} from "../../src/bitcoin/index.ts";
import { projectPath } from "../../src/util/paths.ts";
import { useDevnetCore } from "../support/devnet-core.ts";
import { HAL_TXID } from "../support/harness.ts";

// Core's chainparams.cpp: consensus.hashGenesisBlock asserted per chain.
const GENESIS_HASHES = {
  mainnet: "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f",
  testnet: "000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943",
  testnet4: "00000000da84f2bafbbc53dee25a72ae507ff4914b867c565be350b0da8bf043",
  signet: "00000008819873e925422c1ff0f99f7cc9bbb232af63a077a480a3633bee1ef6",
  regtest: "0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206",
} as const;

const { call } = useDevnetCore(["mainnet", "testnet", "testnet4", "signet", "regtest"]);

const REGTEST_ADDRESS = encodeSegwitAddress("bcrt", 0, new Uint8Array(20).fill(7));

describe("each network its own chain", () => {
  it("builds every genesis block as Core's chainparams do, to its real hash", () => {
    for (const [network, hash] of Object.entries(GENESIS_HASHES)) {
      expect(genesisBlock(network as keyof typeof GENESIS_HASHES).hash).toBe(hash);
    }
    const shipped = readFileSync(projectPath("data", "chain", "blocks", "genesis.raw"));
    expect(toHex(genesisBlock("mainnet").bytes)).toBe(shipped.toString("hex"));
  });

  it("a network's Core serves its own chain from its genesis, no mainnet transactions", async () => {
    // Other test files of this process may have produced blocks on these chains already.
    for (const network of ["testnet", "testnet4", "signet"] as const) {
      expect((await call("getblockhash", [0], network)).result).toBe(GENESIS_HASHES[network]);
      expect((await call("getblockhash", [277647], network)).error?.code).toBe(-8);
      expect((await call("getrawtransaction", [HAL_TXID], network)).error?.code).toBe(-5);
    }
    expect((await call("getrawtransaction", [HAL_TXID], "mainnet")).error).toBeUndefined();
  });

  it("regtest's generatetoaddress builds blocks with real proof of work and BIP34 heights", async () => {
    const before = Number((await call("getblockcount", [], "regtest")).result);
    const { result } = await call("generatetoaddress", [3, REGTEST_ADDRESS], "regtest");
    const hashes = result as string[];
    expect(hashes).toHaveLength(3);
    expect(String((await call("getblockcount", [], "regtest")).result)).toBe(String(before + 3));
    for (const hash of hashes) {
      // 0x207fffff's target: the hash's top bit is clear.
      expect(Number.parseInt(hash.slice(0, 2), 16)).toBeLessThan(0x80);
    }
    const last = (await call("getblock", [hashes[2], 2], "regtest")).result as {
      height: { toString(): string };
      chainwork: string;
      version: { toString(): string };
      tx: { vin: { coinbase: string }[]; vout: { scriptPubKey: { address?: string } }[] }[];
    };
    const height = Number(last.height.toString());
    expect(height).toBe(before + 3);
    // BIP34 push (OP_N below 17) then OP_0, as Core's BlockAssembler writes it.
    expect(last.tx[0]!.vin[0]!.coinbase).toBe(
      height <= 16 ? `${(0x50 + height).toString(16)}00` : last.tx[0]!.vin[0]!.coinbase,
    );
    expect(last.tx[0]!.vout[0]!.scriptPubKey.address).toBe(REGTEST_ADDRESS);
    // Regtest's every block has work 2: chainwork is exact on a chain devnet holds whole.
    expect(BigInt(`0x${last.chainwork}`)).toBe(BigInt(2 * (height + 1)));
    expect(last.version.toString()).toBe(String(0x30000000));
    // Mainnet is untouched.
    expect(String((await call("getblockcount", [], "mainnet")).result)).toBe("951658");
  });

  it("a produced block commits to its wtxids (BIP141) with the zero reserved value as witness", async () => {
    const [hash] = (await call("generatetoaddress", [1, REGTEST_ADDRESS], "regtest"))
      .result as string[];
    const block = parseBlock(
      Buffer.from((await call("getblock", [hash, 0], "regtest")).result as string, "hex"),
    );
    const coinbase = block.transactions[0]!;
    expect(coinbase.inputs[0]!.witness.map(toHex)).toEqual(["00".repeat(32)]);
    const root = computeMerkleRoot([
      new Uint8Array(32),
      ...block.transactions.slice(1).map((t) => t.wtxidBytes),
    ]);
    const commitment = toHex(sha256d(root, new Uint8Array(32)));
    expect(toHex(coinbase.outputs.at(-1)!.scriptPubKey)).toBe(`6a24aa21a9ed${commitment}`);
  });

  it("elsewhere a produced block keeps the tip's nBits and is not mined (devnet checks no PoW)", async () => {
    const address = encodeSegwitAddress("tb", 0, new Uint8Array(20).fill(7));
    const [hash] = (await call("generatetoaddress", [1, address], "testnet4")).result as string[];
    const header = (await call("getblockheader", [hash], "testnet4")).result as Record<
      string,
      unknown
    >;
    expect(header.bits).toBe("1d00ffff");
    expect(String(header.nonce)).toBe("0");
    expect(String(header.version)).toBe(String(0x20000000));
  });

  it("refuses a wrong network's address", async () => {
    const answer = await call(
      "generatetoaddress",
      [1, "1BitcoinEaterAddressDontSendf59kuE"],
      "regtest",
    );
    expect(answer.error).toEqual({ code: -5, message: "Error: Invalid address" });
  });
});
