import { Command, type HelpContext } from "commander";
import type { Check } from "./checks.ts";
import type { CommandOutput, CommandSpec, Values } from "./db-command.ts";
import { overview, term } from "./overview.ts";

/** A command line as parsed: the command's words (`account create`), its operands and options. */
export interface ParsedLine {
  key: string;
  args: string[];
  values: Values;
}

/** What parsing gives: a command to run, or what to print at once (help, version, a mistake). */
export type Parsed = ParsedLine | { out: CommandOutput };

/** A mistake in the command line, found by commander or by a value's check. */
class Mistake extends Error {
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(problem);
  }
}

/** The words after `blockgate` that name `cmd`: "account create", or "" for the root. */
function pathOf(cmd: Command): string {
  const words: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) words.unshift(c.name());
  return words.join(" ");
}

/** commander's error message, reworded as one line that names the mistake. */
function problemOf(cmd: Command, message: string, code: string | undefined): string {
  const quoted = /'([^']*)'/.exec(message)?.[1] ?? "";
  const suggestion = /\(Did you mean (.+)\?\)/.exec(message)?.[1];
  const hint = suggestion ? ` (did you mean ${suggestion}?)` : "";
  switch (code) {
    case "commander.unknownOption":
      return `unknown option ${quoted}${hint}`;
    case "commander.unknownCommand":
      return `unknown command "${quoted}"${hint}`;
    case "commander.missingArgument":
      return `missing argument <${quoted}>`;
    case "commander.optionMissingArgument":
      return `${quoted.split(" ")[0]} needs a value`;
    case "commander.excessArguments":
      return `unexpected argument "${cmd.args[cmd.registeredArguments.length] ?? ""}"`;
    default:
      return message.replace(/^error: /, "").replaceAll("\n", " ");
  }
}

/** commander's Command, with mistakes thrown as values and the root's help our overview. */
class Cli extends Command {
  overview?: string;
  /** The command's spec, for its line in a group's help. */
  spec?: CommandSpec;

  override createCommand(name?: string): Cli {
    return new Cli(name);
  }

  override error(message: string, options?: { code?: string }): never {
    throw new Mistake(pathOf(this), problemOf(this, message, options?.code));
  }

  /** A group named without its command (`blockgate account`): a mistake like any other. */
  override help(context?: HelpContext | ((text: string) => string)): never {
    if (typeof context !== "object" || !context.error || !this.parent) {
      return super.help(context as HelpContext);
    }
    const names = this.commands.map((c) => c.name()).filter((n) => n !== "help");
    throw new Mistake(pathOf(this), `name a command: ${names.join(", ")}`);
  }

  override helpInformation(context?: HelpContext): string {
    return this.overview ?? super.helpInformation(context);
  }
}

/** A check as commander's value parser: a bad value is a mistake of the command at `path`. */
function checked(path: string, label: string, check: Check) {
  return (value: string) => {
    const problem = check(value);
    if (problem) throw new Mistake(path, `${label}: ${problem} (got "${value}")`);
    return value;
  };
}

/** The usage lines of the command at `path`: its own, or those of a group's commands. */
export function usageOf(specs: Record<string, CommandSpec>, path: string): string {
  if (path === "") return "usage: blockgate <command> [options]\n(blockgate --help lists them)";
  const own = specs[path];
  // A group's usage is its commands', each on a line, long ones shortened to [options].
  const lines = own
    ? [`blockgate ${path} ${own.usage}`.trimEnd()]
    : Object.keys(specs)
        .filter((k) => k.startsWith(`${path} `))
        .map((k) => `blockgate ${term(k, specs[k]!)}`);
  const help = `(blockgate ${path} --help for ${own ? "its options and an example" : "more"})`;
  return [`usage: ${lines.join("\n       ")}`, help].join("\n");
}

/** The one-line mistake, the command's usage and where its help is: exit 2. */
export function mistakeOutput(
  specs: Record<string, CommandSpec>,
  path: string,
  problem: string,
): CommandOutput {
  const where = path ? `blockgate ${path}` : "blockgate";
  return { text: `${where}: ${problem}\n${usageOf(specs, path)}`, code: 2 };
}

function addCommand(group: Cli, key: string, spec: CommandSpec): Cli {
  const name = key.split(" ").at(-1)!;
  const cmd = group.command(name).summary(spec.summary).description(spec.summary) as Cli;
  cmd.spec = spec;
  if (spec.usage) cmd.usage(spec.usage);
  for (const op of spec.operands) {
    const term = op.optional ? `[${op.name}]` : `<${op.name}>`;
    if (op.check) cmd.argument(term, op.description, checked(key, op.label ?? op.name, op.check));
    else cmd.argument(term, op.description);
  }
  for (const flag of spec.options) {
    const flags = `${flag.short ? `${flag.short}, ` : ""}--${flag.name}${flag.value ? ` <${flag.value}>` : ""}`;
    if (flag.check) cmd.option(flags, flag.description, checked(key, `--${flag.name}`, flag.check));
    else cmd.option(flags, flag.description);
  }
  if (spec.json) cmd.option("--json", "print the result as JSON (stable keys, for scripts)");
  const examples = spec.examples.map((e) => `  $ blockgate ${e}`).join("\n");
  cmd.addHelpText("after", `\n${spec.examples.length > 1 ? "Examples" : "Example"}:\n${examples}`);
  return cmd;
}

/** The whole command tree, from the commands' specs; what runs is recorded in `chosen`. */
function buildProgram(
  specs: Record<string, CommandSpec>,
  groups: Record<string, string>,
  width: number,
  version: string,
  chosen: { line?: ParsedLine },
  output: { out: string; err: string },
): Cli {
  const root = new Cli("blockgate");
  root.overview = overview(specs, version);
  root
    .exitOverride()
    .version(version, "-V, --version", "print blockgate's version")
    .helpOption("-h, --help", "show help")
    .helpCommand("help [command]", "show a command's help")
    .configureHelp({
      subcommandTerm: (cmd) =>
        cmd instanceof Cli && cmd.spec
          ? term(cmd.name(), cmd.spec)
          : `${cmd.name()} ${cmd.usage()}`,
    })
    .configureOutput({
      writeOut: (s) => {
        output.out += s;
      },
      writeErr: (s) => {
        output.err += s;
      },
      getOutHelpWidth: () => width,
      getErrHelpWidth: () => width,
    });
  const made = new Map<string, Cli>();
  for (const [key, spec] of Object.entries(specs)) {
    const words = key.split(" ");
    let parent: Cli = root;
    if (words.length === 2) {
      const group = words[0]!;
      if (!made.has(group)) made.set(group, root.command(group).description(groups[group]!) as Cli);
      parent = made.get(group)!;
    }
    addCommand(parent, key, spec).action((...params: unknown[]) => {
      const cmd = params.at(-1) as Command;
      chosen.line = { key, args: cmd.processedArgs as string[], values: cmd.opts() as Values };
    });
  }
  return root;
}

/**
 * Parses a command line against the commands' specs: options, number of words and each value's
 * check, before anything else happens. Needs no store, no config, no gateway.
 */
export function parseCommandLine(
  argv: readonly string[],
  specs: Record<string, CommandSpec>,
  groups: Record<string, string>,
  options: { width?: number; version: string },
): Parsed {
  const chosen: { line?: ParsedLine } = {};
  const output = { out: "", err: "" };
  const root = buildProgram(specs, groups, options.width ?? 80, options.version, chosen, output);
  // `help account create`: commander's help command reads one word only.
  const line = argv[0] === "help" && argv.length > 2 ? [...argv.slice(1), "--help"] : argv;
  try {
    root.parse([...line], { from: "user" });
  } catch (err) {
    if (err instanceof Mistake) return { out: mistakeOutput(specs, err.path, err.problem) };
    const code = (err as { code?: string }).code;
    if (code === "commander.helpDisplayed" || code === "commander.version") {
      return { out: { text: output.out.trimEnd(), code: 0 } };
    }
    // `blockgate` alone: the overview, as a mistake (exit 2); `blockgate help`: the same, exit 0.
    if (code === "commander.help") {
      const text = (output.out || output.err).trimEnd();
      return { out: { text, code: output.err ? 2 : 0 } };
    }
    throw err;
  }
  if (!chosen.line) throw new Error(`no command ran for ${argv.join(" ")}`);
  return chosen.line;
}
