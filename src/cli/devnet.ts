import { parseArgs } from "node:util";
import { type Config, NETWORK_NAMES } from "../config/schema.ts";
import type { CommandOutput } from "./commands.ts";
import { findGateway, postToGateway } from "./gateway-call.ts";

export const DEVNET_USAGE = `usage: blockgate devnet mine [--network N] [--blocks K]    K blocks on N's tip (default regtest, 1)
       blockgate devnet reorg [--network N] [--depth D]   D blocks off N's best chain, D + 1 new ones on the fork point`;

/**
 * `blockgate devnet mine|reorg`: asks the running gateway's in-process devnet
 * (POST /admin/devnet/<action>) and prints its answer, the new tip and the blocks connected and
 * disconnected, as JSON.
 */
export async function runDevnetCommand(
  args: string[],
  config: Config,
  env: NodeJS.ProcessEnv,
): Promise<CommandOutput> {
  const [action, ...rest] = args;
  if (action !== "mine" && action !== "reorg") return { text: DEVNET_USAGE, code: 2 };
  let values: { network?: string; blocks?: string; depth?: string };
  try {
    ({ values } = parseArgs({
      args: rest,
      options: {
        network: { type: "string" },
        blocks: { type: "string" },
        depth: { type: "string" },
      },
    }));
  } catch (err) {
    return { text: `devnet ${action}: ${(err as Error).message}\n${DEVNET_USAGE}`, code: 2 };
  }
  if (values[action === "mine" ? "depth" : "blocks"] !== undefined) {
    return {
      text: `devnet ${action}: --${action === "mine" ? "depth" : "blocks"} is not one of its options\n${DEVNET_USAGE}`,
      code: 2,
    };
  }
  const key = action === "mine" ? "blocks" : "depth";
  const given = values[key];
  if (given !== undefined && !/^[1-9]\d{0,5}$/.test(given)) {
    return {
      text: `devnet ${action}: --${key} takes a positive integer\n${DEVNET_USAGE}`,
      code: 2,
    };
  }
  if (
    values.network !== undefined &&
    !(NETWORK_NAMES as readonly string[]).includes(values.network)
  ) {
    return {
      text: `devnet ${action}: --network: one of ${NETWORK_NAMES.join(", ")}\n${DEVNET_USAGE}`,
      code: 2,
    };
  }
  const gateway = findGateway(config, env);
  if (!gateway) {
    return {
      text: "devnet: no running gateway found (start one with npm start; with DATABASE_URL, set BLOCKGATE_OPERATOR_TOKEN)",
      code: 1,
    };
  }
  const body = {
    network: values.network ?? "regtest",
    ...(given === undefined ? {} : { [key]: Number(given) }),
  };
  const res = await postToGateway(gateway, `/admin/devnet/${action}`, body);
  if (!res) return { text: `devnet: the gateway at ${gateway.url} does not answer`, code: 1 };
  if (res.status !== 200) {
    const message = (res.json as { error?: { message?: string } }).error?.message;
    return { text: `devnet ${action}: ${message ?? `HTTP ${res.status}`}`, code: 1 };
  }
  return { text: JSON.stringify(res.json, null, 2), code: 0 };
}
