import { type Network, parseTransaction, txToUniv } from "../bitcoin/index.ts";
import { NETWORK_NAMES } from "../config/schema.ts";
import { stringifyJson } from "../jsonrpc/json.ts";
import type { CommandOutput } from "./commands.ts";

/** `blockgate decode <hex> [--network NAME]`: what Core's decoderawtransaction prints. */
export function runDecode(args: string[]): CommandOutput {
  let network: Network = "mainnet";
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--network" || arg === "-n") network = args[++i] as Network;
    else if (arg.startsWith("--network=")) network = arg.slice("--network=".length) as Network;
    else rest.push(arg);
  }
  if (!(NETWORK_NAMES as readonly string[]).includes(network)) {
    return { text: `--network: one of ${NETWORK_NAMES.join(", ")}`, code: 2 };
  }
  const hex = (rest[0] ?? "").trim();
  if (rest.length !== 1 || !/^([0-9a-fA-F]{2})+$/.test(hex)) {
    return { text: "usage: blockgate decode <hex> [--network NAME]", code: 2 };
  }
  try {
    const tx = parseTransaction(Buffer.from(hex, "hex"));
    return {
      text: prettyCore(stringifyJson(txToUniv(tx, { network, includeHex: false }))),
      code: 0,
    };
  } catch {
    // Core's decoderawtransaction error for bytes that are no transaction.
    return { text: "error code: -22\nerror message:\nTX decode failed", code: 1 };
  }
}

/** Re-indents compact JSON the way bitcoin-cli prints a result (UniValue::write(2)). */
function prettyCore(compact: string): string {
  let out = "";
  let depth = 0;
  let inString = false;
  for (let i = 0; i < compact.length; i++) {
    const c = compact[i]!;
    if (inString) {
      out += c;
      if (c === "\\") out += compact[++i] ?? "";
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') {
      inString = true;
      out += c;
    } else if (c === "{" || c === "[") {
      const close = c === "{" ? "}" : "]";
      if (compact[i + 1] === close) {
        out += c + close;
        i++;
      } else {
        depth++;
        out += `${c}\n${"  ".repeat(depth)}`;
      }
    } else if (c === "}" || c === "]") {
      depth--;
      out += `\n${"  ".repeat(depth)}${c}`;
    } else if (c === ",") {
      out += `,\n${"  ".repeat(depth)}`;
    } else if (c === ":") {
      out += ": ";
    } else {
      out += c;
    }
  }
  return out;
}
