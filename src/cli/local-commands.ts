import { loadConfig } from "../config/load.ts";
import { accessToken, network, workerCount } from "./checks.ts";
import { type CommandOutput, type CommandSpec, text, type Values } from "./db-command.ts";
import { DECODE_SPEC, decodeHex, decodeOptions } from "./decode.ts";
import { DEVNET_SPECS } from "./devnet.ts";
import { mistakeOutput } from "./program.ts";

/**
 * A command the CLI runs itself, without the store: offline tools and devnet's. Null from the
 * servers: `start` asks the CLI to start the gateway in its process; `devnet serve` has started
 * devnet's upstreams, which keep the process running.
 */
export interface LocalCommand extends CommandSpec {
  run(args: readonly (string | undefined)[], values: Values): Promise<CommandOutput | null>;
}

export const LOCAL_COMMANDS: Record<string, LocalCommand> = {
  start: {
    summary: "start the gateway (what npm start runs)",
    usage: "[--workers N|auto] [--config FILE]",
    operands: [],
    options: [
      {
        name: "workers",
        value: "N|auto",
        description: "worker processes sharing the ports (auto: one per core; needs PostgreSQL)",
        check: workerCount,
      },
      {
        name: "config",
        value: "FILE",
        description: "the config file (default $BLOCKGATE_CONFIG; none: devnet defaults)",
      },
    ],
    examples: [
      "start",
      "BLOCKGATE_CONFIG=blockgate.yaml DATABASE_URL=postgres://… blockgate start --workers auto",
    ],
    // The options travel as the environment the gateway reads them from, as a container sets it.
    async run(_args, values) {
      const workers = text(values, "workers");
      const config = text(values, "config");
      if (workers !== undefined) process.env.BLOCKGATE_WORKERS = workers;
      if (config !== undefined) process.env.BLOCKGATE_CONFIG = config;
      return null;
    },
  },
  "config check": {
    summary: "validate a config file as the gateway would; opens nothing",
    usage: "[FILE]",
    operands: [
      { name: "FILE", description: "the file (default $BLOCKGATE_CONFIG)", optional: true },
    ],
    options: [],
    json: true,
    examples: ["config check examples/production.yaml"],
    async run([file], values) {
      // Reads the file only: no database, no upstream, whatever the file says.
      const { checkConfig } = await import("./config-check.ts");
      return checkConfig(file, process.env, values.json === true);
    },
  },
  decode: {
    ...DECODE_SPEC,
    async run([source], values) {
      if (source !== "-") return decodeHex(source!, decodeOptions(values));
      // Reading a terminal would wait for typing: say what the command expects instead.
      if (process.stdin.isTTY) {
        return mistakeOutput(
          { decode: DECODE_SPEC },
          "decode",
          "standard input is a terminal: pipe the hex in",
        );
      }
      const { readAll, STDIN_BYTES_MAX } = await import("./stdin.ts");
      const input = await readAll(process.stdin, STDIN_BYTES_MAX);
      if ("error" in input) return { text: `decode: standard input: ${input.error}`, code: 2 };
      return decodeHex(source, decodeOptions(values), input.text);
    },
  },
  "operator-token": {
    summary: "a new operator token and its config line",
    usage: "",
    operands: [],
    options: [],
    json: true,
    examples: ["operator-token"],
    async run(_args, values) {
      const { runOperatorToken } = await import("./operator-token.ts");
      return runOperatorToken(values.json === true);
    },
  },
  "electrum-name": {
    summary: "the TLS name a stock Electrum wallet dials with a token",
    usage: "<token> [network]",
    operands: [
      { name: "token", description: "an access token (bgt_…)", check: accessToken },
      {
        name: "network",
        description: "for a listener serving several networks",
        optional: true,
        check: network,
      },
    ],
    options: [],
    json: true,
    examples: ["electrum-name bgt_… mainnet"],
    async run([token, net], values) {
      const { runElectrumName } = await import("./electrum-name.ts");
      const config = loadConfig(process.env.BLOCKGATE_CONFIG);
      return runElectrumName(token!, net, config, values.json === true);
    },
  },
  ...devnetCommand("mine"),
  ...devnetCommand("reorg"),
  ...devnetCommand("pay"),
  "devnet serve": {
    ...DEVNET_SPECS["devnet serve"],
    async run(_args, values) {
      const { runDevnetServe } = await import("./devnet-serve.ts");
      return runDevnetServe(values);
    },
  },
};

/** `devnet mine`, `reorg` and `pay` run inside the gateway, whose devnet it is: the CLI finds it and asks. */
function devnetCommand(action: "mine" | "reorg" | "pay"): Record<string, LocalCommand> {
  return {
    [`devnet ${action}`]: {
      ...DEVNET_SPECS[`devnet ${action}`],
      async run(args, values) {
        const { runDevnetCommand } = await import("./devnet.ts");
        const config = loadConfig(process.env.BLOCKGATE_CONFIG);
        return runDevnetCommand(action, values, config, process.env, args);
      },
    },
  };
}
