import { findAccount } from "../billing/ledger/accounts.ts";
import type { Config } from "../config/schema.ts";
import type { Database } from "../db/database.ts";
import type { Check } from "./checks.ts";
import type { View } from "./view.ts";

/**
 * A command's result: text for a pipe or a file, an exit code, and for commands that print
 * tables, what a terminal shows instead (`view`). `text` is what it always was, so scripts that
 * read it and callers of /admin/cli keep working; the CLI renders `view` where a person reads it.
 */
export interface CommandOutput {
  text: string;
  code: number;
  view?: View;
}

/** A mistake in the command line: exit 2 with the command's usage, nothing written. */
export class UsageError extends Error {}

/** A word the command takes: `<name>`, or `[name]` when optional. */
export interface Operand {
  name: string;
  description: string;
  /** How a mistake in it is named (default: the name). */
  label?: string;
  optional?: boolean;
  check?: Check;
}

/** An option the command takes: `--name <value>`, or `--name` alone when it has no value. */
export interface Flag {
  name: string;
  description: string;
  /** Its value's placeholder in help (`N`, `L`): absent for a switch. */
  value?: string;
  /** Another spelling, such as `-n`. */
  short?: string;
  check?: Check;
}

/**
 * What the command line parser knows of a command: its words, options and checks, which run
 * before anything is opened or contacted, and what `--help` shows.
 */
export interface CommandSpec {
  summary: string;
  /** What follows the command's words in its usage line. */
  usage: string;
  operands: readonly Operand[];
  options: readonly Flag[];
  /** Whether it prints data and so takes --json. */
  json?: boolean;
  /** One or more command lines that show it at work. */
  examples: readonly string[];
}

/** The options as parsed: each option's value (checked), `true` for a switch. */
export interface Values {
  [name: string]: string | boolean | undefined;
  unrestricted?: boolean;
  json?: boolean;
}

/** A string option's value (parsed options of a switch are booleans). */
export const text = (values: Values, name: string): string | undefined => {
  const value = values[name];
  return typeof value === "string" ? value : undefined;
};

/**
 * One database command. `run` checks what only the store can tell (the account exists, the plan
 * is configured) before its first write, and writes in one transaction where it writes more than
 * once: a refused command leaves the store as it was.
 */
export interface DbCommand extends CommandSpec {
  /** It brings the schema up to date itself: the store opens without migrating or checking it. */
  leavesSchema?: boolean;
  run(
    services: { db: Database; config: Config },
    args: readonly string[],
    values: Values,
  ): Promise<CommandOutput>;
}

export const done = (text: string): CommandOutput => ({ text, code: 0 });

/**
 * What a command prints: its data as JSON with --json; otherwise `text` for pipes and files,
 * and `view` for a terminal.
 */
export function shown(values: Values, json: unknown, text: string, view?: View): CommandOutput {
  if (values.json) return { text: JSON.stringify(json, null, 2), code: 0 };
  return view ? { text, code: 0, view } : { text, code: 0 };
}

/** The account named (by name or id); a usage error when there is none. */
export async function namedAccount(db: Database, ref: string | undefined) {
  if (!ref) throw new UsageError("name an account");
  const found = await findAccount(db, ref);
  if (!found) throw new UsageError(`no account "${ref}"`);
  return found;
}
