import { parse } from "lossless-json";
import { afterAll, beforeAll } from "vitest";
import { encodeSegwitAddress } from "../../src/bitcoin/index.ts";
import type { NetworkName } from "../../src/config/schema.ts";
import { type Devnet, startDevnet } from "../../src/devnet/devnet.ts";

/** A 2.0 call to devnet's Core of one network over its HTTP socket. */
export interface CoreAnswer {
  /** The result with numbers kept as LosslessNumber (Core's literal text). */
  result?: unknown;
  /** The error as plain JSON. */
  error?: { code: number; message: string } | null;
  text: string;
}

export function coreCaller(devnet: Devnet) {
  return async (
    method: string,
    params: unknown[] | Record<string, unknown> = [],
    network: NetworkName = "mainnet",
  ): Promise<CoreAnswer> => {
    const core = devnet.cores.get(network)!;
    const res = await fetch(core.url, {
      method: "POST",
      headers: {
        authorization: `Basic ${Buffer.from(`${core.user}:${core.password}`).toString("base64")}`,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    });
    const text = await res.text();
    return {
      result: (parse(text) as { result?: unknown }).result,
      error: (JSON.parse(text) as { error?: { code: number; message: string } }).error,
      text,
    };
  };
}

/** Parsed JSON with every number kept as its literal text, for comparing with Core's output. */
export function lossless(text: string): unknown {
  return parse(text);
}

/** A P2WPKH address of `network` (a made-up key hash): somewhere for produced blocks to pay. */
export function someAddress(network: NetworkName): string {
  const hrp = network === "mainnet" ? "bc" : network === "regtest" ? "bcrt" : "tb";
  return encodeSegwitAddress(hrp, 0, new Uint8Array(20).fill(7));
}

/** Mines one block on `network`'s devnet Core (generatetoaddress, as bitcoind's RPC does); its hash. */
export async function mineBlock(devnet: Devnet, network: NetworkName = "mainnet"): Promise<string> {
  const call = coreCaller(devnet);
  const [hash] = (await call("generatetoaddress", [1, someAddress(network)], network))
    .result as string[];
  return hash!;
}

/**
 * Produces one block on `network`'s devnet chain (devnet's generatetoaddress) and returns its
 * coinbase txid: a transaction that network's Core holds, for tests whose chain starts at genesis.
 */
export async function mineCoinbase(devnet: Devnet, network: NetworkName): Promise<string> {
  const call = coreCaller(devnet);
  const hash = await mineBlock(devnet, network);
  const block = (await call("getblock", [hash, 1], network)).result as { tx: string[] };
  return block.tx[0]!;
}

/**
 * Starts devnet for the networks before the file's tests and closes it after; `call` asks the
 * network's Core (mainnet by default) once started.
 */
export function useDevnetCore(networks: NetworkName[]): {
  call: ReturnType<typeof coreCaller>;
  devnet: () => Devnet;
} {
  let devnet: Devnet | undefined;
  beforeAll(async () => {
    devnet = await startDevnet(networks);
  });
  afterAll(() => devnet?.close());
  return {
    call: (method, params, network) => coreCaller(devnet!)(method, params, network),
    devnet: () => devnet!,
  };
}
