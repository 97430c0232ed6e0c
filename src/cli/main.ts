import { ConfigError, loadConfig } from "../config/load.ts";
import { openDatabase } from "../db/open.ts";
import { adminFilePath, readAdminFile } from "../routes/admin/admin-file.ts";
import { type CommandOutput, helpText, runDbCommand, unknownCommand } from "./commands.ts";
import { postToGateway } from "./gateway-call.ts";

/** `blockgate …` / `npm run cli -- …`. */
async function cli(argv: string[]): Promise<number> {
  const [command] = argv;
  if (!command || command === "help" || command === "--help" || command === "-h") {
    process.stdout.write(`${helpText()}\n`);
    return command ? 0 : 2;
  }
  if (command === "serve") {
    await import("../main.ts");
    return -1; // keeps running
  }
  if (command === "operator-token") {
    const { runOperatorToken } = await import("./operator-token.ts");
    return print(runOperatorToken(argv.slice(1)));
  }
  if (command === "decode") return print(await decode(argv.slice(1)));
  if (command === "config") {
    // Reads the file only: no database, no upstream, whatever the file says.
    const { runConfigCommand } = await import("./config-check.ts");
    return print(runConfigCommand(argv.slice(1), process.env));
  }
  if (command === "electrum-name") {
    const { runElectrumName } = await import("./electrum-name.ts");
    return print(runElectrumName(argv.slice(1), loadConfig(process.env.BLOCKGATE_CONFIG)));
  }
  if (command === "devnet") {
    // Runs inside the gateway, whose devnet it is: the CLI only finds it and asks.
    const { runDevnetCommand } = await import("./devnet.ts");
    return print(
      await runDevnetCommand(argv.slice(1), loadConfig(process.env.BLOCKGATE_CONFIG), process.env),
    );
  }
  const unknown = unknownCommand(command);
  if (unknown) return print(unknown);
  const config = loadConfig(process.env.BLOCKGATE_CONFIG);
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    const admin = readAdminFile(config);
    if (admin) {
      const forwarded = await forward(admin.url, admin.secret, argv);
      if (forwarded) return print(forwarded);
      // A gateway that drains (SIGTERM) no longer accepts connections but holds the store until
      // its calls are settled; it removes the file only after closing it. Opening the store
      // meanwhile would make two processes write one PGlite folder.
      if (admin.pid !== undefined && alive(admin.pid)) {
        return print({
          text: `the gateway (pid ${admin.pid}) holds the PGlite store and does not answer (shutting down?); try again once it has exited, or remove ${adminFilePath(config)} if no gateway runs`,
          code: 1,
        });
      }
    }
  }
  const db = await openDatabase({
    databaseUrl,
    pgliteDir: config.database.pgliteDir,
    poolSize: 2,
  });
  try {
    return print(await runDbCommand(db, argv, config));
  } finally {
    await db.close();
  }
}

/** `decode`: needs no config or database; `-` reads the hex from standard input. */
async function decode(args: string[]): Promise<CommandOutput> {
  const { DECODE_USAGE, runDecode, wantsStdin } = await import("./decode.ts");
  if (!wantsStdin(args)) return runDecode(args);
  // Nothing piped in: reading a terminal would wait for typing, so say what the command expects.
  if (process.stdin.isTTY) {
    return {
      text: `decode: standard input is a terminal: pipe the hex in\n${DECODE_USAGE}`,
      code: 2,
    };
  }
  const { readAll, STDIN_BYTES_MAX } = await import("./stdin.ts");
  const input = await readAll(process.stdin, STDIN_BYTES_MAX);
  if ("error" in input) return { text: `decode: standard input: ${input.error}`, code: 2 };
  return runDecode(args, input.text);
}

/** Runs the command inside the gateway that holds the PGlite store; null if none answers. */
async function forward(url: string, secret: string, argv: string[]): Promise<CommandOutput | null> {
  const res = await postToGateway({ url, credential: secret }, "/admin/cli", { argv });
  return res?.status === 200 ? (res.json as CommandOutput) : null;
}

/** Whether process `pid` exists (EPERM: it does, as another user's). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

function print(out: CommandOutput): number {
  (out.code === 0 ? process.stdout : process.stderr).write(`${out.text}\n`);
  return out.code;
}

cli(process.argv.slice(2))
  .then((code) => {
    if (code >= 0) process.exitCode = code;
  })
  .catch((err: unknown) => {
    process.stderr.write(
      err instanceof ConfigError ? `${err.message}\n` : `blockgate: ${(err as Error).message}\n`,
    );
    process.exitCode = 1;
  });
