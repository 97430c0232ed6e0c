import { openStore, startGateway } from "./app/app.ts";
import { startupBanner } from "./app/banner.ts";
import { prepareDemo } from "./app/demo.ts";
import {
  devnetNetworks,
  resolveElectrumUpstreams,
  resolveEsploraUpstreams,
  resolveGraphUpstreams,
  resolveNodeUpstreams,
} from "./app/upstreams.ts";
import { ConfigError, loadConfig } from "./config/load.ts";
import { prettyDestination } from "./log/logger.ts";
import { attachDevnet } from "./routes/admin/devnet-control.ts";

/** `npm start`: config file from BLOCKGATE_CONFIG (none: devnet defaults), then serve. */
async function main(): Promise<void> {
  const file = process.env.BLOCKGATE_CONFIG;
  // With no file, `npm start` is the demo: a regtest block every 10 s shows live chain events
  // within seconds. A file (tests', production's) says itself whether devnet mines on a timer.
  const config = loadConfig(file, file ? {} : { devnet: { blockIntervalMs: 10_000 } });
  const devNets = devnetNetworks(config);
  // The store opens while devnet parses its chain: PGlite compiles its WebAssembly meanwhile.
  const store = openStore(config, { databaseUrl: process.env.DATABASE_URL });
  store.catch(() => {}); // a failure is reported where it is awaited, in startGateway
  // devnet is its own entry, loaded only when some upstream is devnet: a production build's
  // gateway never reads its code.
  const devnet =
    devNets.length > 0
      ? await (await import("./devnet/devnet.ts")).startDevnet(devNets, config.devnet)
      : null;
  const pretty =
    config.log.format === "pretty" ||
    (config.log.format === "auto" && process.stdout.isTTY === true);
  const gateway = await startGateway(config, {
    ...(pretty ? { logDestination: await prettyDestination(process.stderr.isTTY === true) } : {}),
    store,
    databaseUrl: process.env.DATABASE_URL,
    redisUrl: process.env.REDIS_URL,
    nodeUpstreams: resolveNodeUpstreams(config, devnet),
    graphUpstreams: resolveGraphUpstreams(config, devnet),
    electrumUpstreams: resolveElectrumUpstreams(config, devnet),
    esploraUpstreams: resolveEsploraUpstreams(config, devnet),
  });
  if (devnet) attachDevnet(gateway.app, devnet.producers);
  const where = `store: ${process.env.DATABASE_URL ? "PostgreSQL (DATABASE_URL)" : `PGlite in ${config.database.pgliteDir}`}${devnet ? "; upstreams: devnet" : ""}`;
  const demo = config.demo.enabled ? await prepareDemo(gateway.app.db, config.demo.credits) : null;
  const httpsUrl = gateway.http.https?.url ?? null;
  const banner = startupBanner(config, gateway.url, where, demo, httpsUrl);
  // On a terminal the banner stands apart from the log lines around it.
  process.stdout.write(process.stdout.isTTY ? `\n${banner}\n` : banner);
  // gateway.close() drains (server.drainTimeoutMs). Each handler is once-only: the same signal a
  // second time (Ctrl-C twice) is not caught and ends the process at once.
  const stop = () => {
    gateway
      .close()
      .then(() => devnet?.close())
      .then(
        () => process.exit(0),
        (err: unknown) => {
          process.stderr.write(`blockgate: shutdown failed: ${(err as Error).message}\n`);
          process.exit(1);
        },
      );
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

main().catch((err: unknown) => {
  process.stderr.write(
    err instanceof ConfigError
      ? `${err.message}\n`
      : `blockgate failed to start: ${(err as Error).message}\n`,
  );
  process.exit(1);
});
