import { parseLine } from "../../src/cli/commands.ts";
import type { CommandOutput } from "../../src/cli/db-command.ts";
import { decodeHex, decodeOptions } from "../../src/cli/decode.ts";

/** `blockgate decode <args>` in this process, parsed as the CLI parses it; `stdin` for `-`. */
export function runDecode(args: string[], stdin?: string): CommandOutput {
  const parsed = parseLine(["decode", ...args]);
  if ("out" in parsed) return parsed.out;
  return decodeHex(parsed.args[0]!, decodeOptions(parsed.values), stdin);
}
