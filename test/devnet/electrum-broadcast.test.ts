import ElectrumClient from "@mempool/electrum-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fromHex, toHex } from "../../src/bitcoin/hex.ts";
import { electrumScripthash } from "../../src/bitcoin/scripthash.ts";
import type { DevnetChain } from "../../src/devnet/chain.ts";
import { type Devnet, startDevnet } from "../../src/devnet/devnet.ts";

/**
 * blockchain.transaction.broadcast on devnet's ElectrumX: the daemon (devnet's Core) takes the
 * transaction into the mempool, and the script index sees it at once — balances, unspent outputs
 * and mempool histories — as ElectrumX's mempool does. devnet's Core does not verify scripts, so
 * a transaction spending a real output with an empty scriptSig is accepted.
 */

/** Satoshi's key; 828ef3b0…:1 (block 248's 18 BTC change) is its one unspent output. */
const SATOSHI = "8131e31b9b2da6ddb7cca24c537869c94320f19e80fc2ee72c9558e5a9296978";
const SPENT = "828ef3b079f9c23829c56fe86e85b4a69d9e06e5b54ea597eef5fb3ffef509fe";
const PAY_SCRIPT = fromHex(`76a914${"11".repeat(20)}88ac`);
const FEE = 10_000n;

/** Version 1, one input (SPENT:1, empty scriptSig), one P2PKH output, locktime 0. */
function spendingTx(): string {
  const le = (n: bigint, bytes: number) => {
    let out = "";
    for (let i = 0; i < bytes; i++)
      out += Number((n >> BigInt(8 * i)) & 0xffn)
        .toString(16)
        .padStart(2, "0");
    return out;
  };
  const prevTxid = toHex(fromHex(SPENT).reverse());
  return [
    "01000000",
    "01",
    prevTxid,
    "01000000",
    "00",
    "ffffffff",
    "01",
    le(1_800_000_000n - FEE, 8),
    PAY_SCRIPT.length.toString(16).padStart(2, "0"),
    toHex(PAY_SCRIPT),
    "00000000",
  ].join("");
}

interface Stock {
  initElectrum(config: { client: string; version: string }): Promise<unknown>;
  request(method: string, params: unknown[]): Promise<unknown>;
  close(): void;
}
type StockCtor = new (port: number, host: string, protocol: string) => Stock;

let devnet: Devnet;
let client: Stock;
let sent: string | undefined;
/** The devnet's own mainnet chain (each devnet has one: what it takes in stays its own). */
let chain: DevnetChain;
beforeAll(async () => {
  devnet = await startDevnet(["mainnet"]);
  chain = devnet.producers.get("mainnet")!.chain;
  client = new (ElectrumClient as unknown as StockCtor)(
    devnet.electrum.get("mainnet")!.port,
    "127.0.0.1",
    "tcp",
  );
  await client.initElectrum({ client: "broadcast-test", version: "1.4" });
});
afterAll(async () => {
  client.close();
  await devnet.close();
});

describe("devnet ElectrumX: blockchain.transaction.broadcast", () => {
  it("a refusal of the daemon: code 1, the daemon's message, the hex sent", async () => {
    await expect(client.request("blockchain.transaction.broadcast", ["00"])).rejects.toMatchObject({
      code: 1,
      message:
        "the transaction was rejected by network rules.\n\nTX decode failed. Make sure the tx has at least one input.\n[00]",
    });
  });

  it("an accepted transaction: its txid; the mempool, balances and unspent outputs follow", async () => {
    const hex = spendingTx();
    sent = (await client.request("blockchain.transaction.broadcast", [hex])) as string;
    expect(sent).toMatch(/^[0-9a-f]{64}$/);
    expect(chain.mempool.has(sent)).toBe(true);
    // The spent output is still confirmed (db.all_utxos) but no longer listed unspent.
    expect(await client.request("blockchain.scripthash.get_balance", [SATOSHI])).toEqual({
      confirmed: 1_800_000_000,
      unconfirmed: -1_800_000_000,
    });
    expect(await client.request("blockchain.scripthash.listunspent", [SATOSHI])).toEqual([]);
    expect(await client.request("blockchain.scripthash.get_mempool", [SATOSHI])).toEqual([
      { tx_hash: sent, height: 0, fee: Number(FEE) },
    ]);
    const payee = electrumScripthash(PAY_SCRIPT);
    expect(await client.request("blockchain.scripthash.listunspent", [payee])).toEqual([
      { tx_hash: sent, tx_pos: 0, height: 0, value: 1_800_000_000 - Number(FEE) },
    ]);
    expect(await client.request("blockchain.scripthash.get_balance", [payee])).toEqual({
      confirmed: 0,
      unconfirmed: 1_800_000_000 - Number(FEE),
    });
  });
});
