import type { Config } from "../config/schema.ts";
import { network, networkList, wholeNumber } from "./checks.ts";
import { type CommandOutput, type CommandSpec, text, type Values } from "./db-command.ts";
import { findGateway, postToGateway, refusal } from "./gateway-call.ts";

const NETWORK = {
  name: "network",
  value: "N",
  description: "the network (default regtest)",
  check: network,
};

/** `blockgate devnet mine`, `devnet reorg`, `devnet pay` and `devnet serve`, as the command line parser knows them. */
export const DEVNET_SPECS: Record<
  "devnet mine" | "devnet reorg" | "devnet pay" | "devnet serve",
  CommandSpec
> = {
  "devnet mine": {
    summary: "K blocks on the running gateway's devnet tip (regtest, 1)",
    usage: "[--network N] [--blocks K]",
    operands: [],
    options: [
      NETWORK,
      {
        name: "blocks",
        value: "K",
        description: "how many (default 1)",
        check: wholeNumber(1, 999_999),
      },
    ],
    examples: ["devnet mine", "devnet mine --network mainnet --blocks 6"],
  },
  "devnet reorg": {
    summary: "D blocks off devnet's best chain, D + 1 new on the fork",
    usage: "[--network N] [--depth D]",
    operands: [],
    options: [
      NETWORK,
      {
        name: "depth",
        value: "D",
        description: "how deep (default 1)",
        check: wholeNumber(1, 999_999),
      },
    ],
    examples: ["devnet reorg --depth 2"],
  },
  "devnet pay": {
    summary: "pay an address from devnet's own coins; prints the txid",
    usage: "<address> <sats> [--network N]",
    operands: [
      { name: "address", description: "any address of the network" },
      { name: "sats", description: "how many satoshis", check: wholeNumber(1) },
    ],
    options: [NETWORK],
    examples: ["devnet pay bcrt1q… 50000", "devnet pay tb1q… 100000 --network signet"],
  },
  "devnet serve": {
    summary: "devnet's upstreams alone, in a process of their own",
    usage: "[--networks L] [--port-base P] [--lie N:JSON]",
    operands: [],
    options: [
      {
        name: "networks",
        value: "L",
        description: "networks separated by commas (default all five)",
        check: networkList,
      },
      {
        name: "port-base",
        value: "P",
        description:
          "ports P, P + 1, … per network: Core, Electrum, indexer, Esplora (default any free)",
        check: wholeNumber(1, 65_535),
      },
      {
        name: "lie",
        value: "N:JSON",
        description:
          "also a lying Core and Electrum server in front of network N's, telling JSON's lies (docs/users/devnet.md)",
        check: (v) => (/^[a-z0-9]+:\{.*\}$/s.test(v) ? network(v.split(":")[0]!) : "N:{...}"),
      },
    ],
    examples: [
      "devnet serve",
      "devnet serve --networks mainnet,regtest --port-base 18400",
      `devnet serve --networks regtest --lie 'regtest:{"shorterBy":5}'`,
    ],
  },
};

/**
 * `blockgate devnet mine|reorg|pay`: asks the running gateway's in-process devnet
 * (POST /admin/devnet/<action>) and prints its answer: the new tip and the blocks connected and
 * disconnected, as JSON; for `pay`, the txid.
 */
export async function runDevnetCommand(
  action: "mine" | "reorg" | "pay",
  values: Values,
  config: Config,
  env: NodeJS.ProcessEnv,
  args: readonly (string | undefined)[] = [],
): Promise<CommandOutput> {
  const gateway = findGateway(config, env);
  if (!gateway) {
    return {
      text: "devnet: no running gateway found (start one with npm start; with DATABASE_URL, set BLOCKGATE_OPERATOR_TOKEN)",
      code: 1,
    };
  }
  const body = {
    network: text(values, "network") ?? "regtest",
    ...actionBody(action, values, args),
  };
  const res = await postToGateway(gateway, `/admin/devnet/${action}`, body);
  if ("unreachable" in res) {
    return {
      text: `devnet: the gateway at ${gateway.url} does not answer (${res.unreachable})`,
      code: 1,
    };
  }
  if (res.status !== 200) {
    const message = (res.json as { error?: { message?: string } } | null)?.error?.message;
    return { text: `devnet ${action}: ${message ?? refusal(res)}`, code: 1 };
  }
  // `pay` prints the txid alone, for scripts: `txid=$(blockgate devnet pay …)`.
  if (action === "pay") return { text: (res.json as { txid: string }).txid, code: 0 };
  return { text: JSON.stringify(res.json, null, 2), code: 0 };
}

/** What each action sends beside the network. */
function actionBody(
  action: "mine" | "reorg" | "pay",
  values: Values,
  args: readonly (string | undefined)[],
): Record<string, string | number> {
  if (action === "pay") return { address: args[0]!, sats: Number(args[1]) };
  const key = action === "mine" ? "blocks" : "depth";
  const given = text(values, key);
  return given === undefined ? {} : { [key]: Number(given) };
}
