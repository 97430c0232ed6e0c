import { findAccount } from "../billing/ledger/accounts.ts";
import type { Config } from "../config/schema.ts";
import type { Database } from "../db/database.ts";

/** A command's result: text for the terminal and an exit code. */
export interface CommandOutput {
  text: string;
  code: number;
}

/** A mistake in the command line: exit 2 with the command's usage, nothing written. */
export class UsageError extends Error {}

/** Every option a database command may take (each command names the ones it reads). */
export const STRING_OPTIONS = [
  "credits",
  "label",
  "memo",
  "limit",
  "cycle",
  "kind",
  "backends",
  "networks",
  "methods",
  "origins",
  "ips",
  "expires",
  "grace",
  "event",
  "network",
  "txid",
  "address",
  "until",
  "targets",
  "description",
] as const;

export type OptionName = (typeof STRING_OPTIONS)[number] | "unrestricted";
export type Values = { [K in (typeof STRING_OPTIONS)[number]]?: string } & {
  unrestricted?: boolean;
};

/**
 * One database command. `run` checks every argument before its first write, and writes in one
 * transaction where it writes more than once: a refused command leaves the store as it was.
 */
export interface DbCommand {
  /** What follows `blockgate ` in its usage line. */
  usage: string;
  /** The options it reads; any other is a usage error, never silently ignored. */
  options: readonly OptionName[];
  /** How many words follow the command's name, at least and at most. */
  arity: readonly [number, number];
  run(
    services: { db: Database; config: Config },
    args: readonly string[],
    values: Values,
  ): Promise<CommandOutput>;
}

export const done = (text: string): CommandOutput => ({ text, code: 0 });

/** The account named (by name or id); a usage error when there is none. */
export async function namedAccount(db: Database, ref: string | undefined) {
  if (!ref) throw new UsageError("name an account");
  const found = await findAccount(db, ref);
  if (!found) throw new UsageError(`no account "${ref}"`);
  return found;
}

export function positiveInt(value: string | undefined, what: string, unit = ""): number {
  if (
    !value ||
    !/^\d+$/.test(value) ||
    !Number.isSafeInteger(Number(value)) ||
    Number(value) <= 0
  ) {
    throw new UsageError(`${what}: a positive whole number${unit && ` of ${unit}`}`);
  }
  return Number(value);
}

export function idOf(ref: string | undefined, what: string): number {
  if (!ref || !/^\d+$/.test(ref) || !Number.isSafeInteger(Number(ref))) {
    throw new UsageError(`name ${what} by its id`);
  }
  return Number(ref);
}
