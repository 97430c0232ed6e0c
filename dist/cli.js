// Built by `npm run build` from src/ (scripts/build.mjs); do not edit.
import {
  postToGateway
} from "./chunks/chunk-CF2I532U.js";
import {
  helpText,
  openDatabase,
  runDbCommand,
  unknownCommand
} from "./chunks/chunk-TCTIOHP2.js";
import {
  adminFilePath,
  readAdminFile
} from "./chunks/chunk-GIQUGMH5.js";
import "./chunks/chunk-VNIG4S7Q.js";
import "./chunks/chunk-UUT7BSOM.js";
import "./chunks/chunk-A5KRFPS2.js";
import {
  ConfigError,
  loadConfig
} from "./chunks/chunk-PCU6IYAE.js";
import "./chunks/chunk-BUEEPKH6.js";
import "./chunks/chunk-M6ZRZKCO.js";

// src/cli/main.ts
async function cli(argv) {
  const [command] = argv;
  if (!command || command === "help" || command === "--help" || command === "-h") {
    process.stdout.write(`${helpText()}
`);
    return command ? 0 : 2;
  }
  if (command === "serve") {
    await import("./main.js");
    return -1;
  }
  if (command === "operator-token") {
    const { runOperatorToken } = await import("./chunks/operator-token-PK6TVC7A.js");
    return print(runOperatorToken(argv.slice(1)));
  }
  if (command === "decode") return print(await decode(argv.slice(1)));
  if (command === "config") {
    const { runConfigCommand } = await import("./chunks/config-check-S6SXX2RI.js");
    return print(runConfigCommand(argv.slice(1), process.env));
  }
  if (command === "electrum-name") {
    const { runElectrumName } = await import("./chunks/electrum-name-AYHAE57Z.js");
    return print(runElectrumName(argv.slice(1), loadConfig(process.env.BLOCKGATE_CONFIG)));
  }
  if (command === "devnet") {
    const { runDevnetCommand } = await import("./chunks/devnet-HZ4AYAZM.js");
    return print(
      await runDevnetCommand(argv.slice(1), loadConfig(process.env.BLOCKGATE_CONFIG), process.env)
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
      if (admin.pid !== void 0 && alive(admin.pid)) {
        return print({
          text: `the gateway (pid ${admin.pid}) holds the PGlite store and does not answer (shutting down?); try again once it has exited, or remove ${adminFilePath(config)} if no gateway runs`,
          code: 1
        });
      }
    }
  }
  const db = await openDatabase({
    databaseUrl,
    pgliteDir: config.database.pgliteDir,
    poolSize: 2
  });
  try {
    return print(await runDbCommand(db, argv, config));
  } finally {
    await db.close();
  }
}
async function decode(args) {
  const { DECODE_USAGE, runDecode, wantsStdin } = await import("./chunks/decode-DLLPDD6Q.js");
  if (!wantsStdin(args)) return runDecode(args);
  if (process.stdin.isTTY) {
    return {
      text: `decode: standard input is a terminal: pipe the hex in
${DECODE_USAGE}`,
      code: 2
    };
  }
  const { readAll, STDIN_BYTES_MAX } = await import("./chunks/stdin-XPTK2ZBL.js");
  const input = await readAll(process.stdin, STDIN_BYTES_MAX);
  if ("error" in input) return { text: `decode: standard input: ${input.error}`, code: 2 };
  return runDecode(args, input.text);
}
async function forward(url, secret, argv) {
  const res = await postToGateway({ url, credential: secret }, "/admin/cli", { argv });
  return res?.status === 200 ? res.json : null;
}
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === "EPERM";
  }
}
function print(out) {
  (out.code === 0 ? process.stdout : process.stderr).write(`${out.text}
`);
  return out.code;
}
cli(process.argv.slice(2)).then((code) => {
  if (code >= 0) process.exitCode = code;
}).catch((err) => {
  process.stderr.write(
    err instanceof ConfigError ? `${err.message}
` : `blockgate: ${err.message}
`
  );
  process.exitCode = 1;
});
