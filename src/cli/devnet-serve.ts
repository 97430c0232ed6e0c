// The one CLI file that loads devnet: `devnet serve` runs its upstreams as a process of their own.
import { NETWORK_NAMES, type NetworkName } from "../config/schema.ts";
import { type Devnet, startDevnet } from "../devnet/devnet.ts";
import { devnetEndpoints } from "../devnet/endpoints.ts";
import { type Liar, startLiar } from "../devnet/liar/liar.ts";
import { type LiarOptions, parseLiarOptions } from "../devnet/liar/options.ts";
import { DEVNET_PORTS_PER_NETWORK } from "../devnet/ports.ts";
import { type CommandOutput, text, type Values } from "./db-command.ts";
import { DEVNET_SPECS } from "./devnet.ts";
import { mistakeOutput } from "./program.ts";

const PORT_MAX = 65_535;
const SPEC = { "devnet serve": DEVNET_SPECS["devnet serve"] };

/** Why `count` networks' servers do not fit from `portBase`, or null when they do. */
function portsProblem(portBase: number, count: number): string | null {
  const last = portBase + count * DEVNET_PORTS_PER_NETWORK - 1;
  if (last <= PORT_MAX) return null;
  return `--port-base: ${count} networks need ports ${portBase} to ${last}, past ${PORT_MAX}`;
}

/**
 * `blockgate devnet serve`: devnet's Core, Electrum server and indexer per network on 127.0.0.1,
 * no gateway and no store. Once all listen, prints one JSON line, every network's URLs and
 * credentials, and keeps running (null) until SIGTERM or SIGINT closes them all (exit 0).
 */
export async function runDevnetServe(values: Values): Promise<CommandOutput | null> {
  const listed = text(values, "networks");
  const networks = listed
    ? (listed.split(",").map((s) => s.trim()) as NetworkName[])
    : [...NETWORK_NAMES];
  const given = text(values, "portBase"); // commander's name for --port-base
  const portBase = given === undefined ? undefined : Number(given);
  const problem = portBase === undefined ? null : portsProblem(portBase, networks.length);
  if (problem) return mistakeOutput(SPEC, "devnet serve", problem);
  const lie = lieOption(values, networks);
  if (typeof lie === "string") return mistakeOutput(SPEC, "devnet serve", lie);
  let devnet: Devnet;
  let liar: Liar | null = null;
  try {
    devnet = await startDevnet(networks, portBase === undefined ? {} : { portBase });
    if (lie) liar = await startLiar(devnet, lie.network, lie.options);
  } catch (err) {
    return { text: `devnet serve: ${(err as Error).message}`, code: 1 };
  }
  const endpoints = devnetEndpoints(devnet);
  const liars =
    liar && lie ? { liars: { [lie.network]: { core: liar.core, electrum: liar.electrum } } } : {};
  process.stdout.write(`${JSON.stringify({ ...endpoints, ...liars })}\n`);
  // Once-only, as the gateway's: the same signal a second time ends the process at once.
  const stop = () => {
    Promise.all([liar?.close(), devnet.close()]).then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`devnet serve: shutdown failed: ${(err as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  return null;
}

/** `--lie N:JSON`: the network and its lies; null when not given; what is wrong as a string. */
function lieOption(
  values: Values,
  networks: readonly NetworkName[],
): { network: NetworkName; options: LiarOptions } | null | string {
  const given = text(values, "lie");
  if (given === undefined) return null;
  const at = given.indexOf(":");
  const network = given.slice(0, at) as NetworkName;
  if (!networks.includes(network)) return `--lie: devnet does not serve ${network} here`;
  const options = parseLiarOptions(given.slice(at + 1));
  return typeof options === "string" ? `--lie: ${options}` : { network, options };
}
