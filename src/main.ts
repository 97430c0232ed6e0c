import cluster from "node:cluster";
import type { DestinationStream } from "pino";
import type { WorkerRole } from "./app/app.ts";
import {
  devnetNetworks,
  resolveElectrumUpstreams,
  resolveEsploraUpstreams,
  resolveGraphUpstreams,
  resolveNodeUpstreams,
} from "./app/upstreams.ts";
import { clusterRefusal, workersWanted } from "./cluster/count.ts";
import { runPrimary } from "./cluster/primary.ts";
import { announceReady, announces, workerRole } from "./cluster/worker.ts";
import { ConfigError, loadConfig } from "./config/load.ts";
import type { Config } from "./config/schema.ts";
import { createLogger, prettyDestination } from "./log/logger.ts";

/**
 * `npm start`: config file from BLOCKGATE_CONFIG (none: devnet defaults), then serve — in this
 * process, or, with workers (`--workers N`, `server.workers`), in N worker processes this one
 * supervises (src/cluster).
 */
async function main(): Promise<void> {
  const file = process.env.BLOCKGATE_CONFIG;
  // With no file, `npm start` is the demo: a regtest block every 10 s shows live chain events
  // within seconds. A file (tests', production's) says itself whether devnet mines on a timer.
  const config = loadConfig(file, file ? {} : { devnet: { blockIntervalMs: 10_000 } });
  const destination = await logDestination(config);
  if (cluster.isPrimary) {
    const wanted = workersWanted(config, process.env);
    if ("error" in wanted) return refuse(wanted.error);
    if (wanted.count > 0) {
      const refusal = clusterRefusal(
        wanted.count,
        process.env.DATABASE_URL,
        devnetNetworks(config),
      );
      if (refusal) return refuse(refusal);
      return runPrimary({
        count: wanted.count,
        drainTimeoutMs: config.server.drainTimeoutMs,
        log: createLogger(config.log.level, destination),
        print: (line) => process.stdout.write(line),
      });
    }
  }
  await serve(config, destination, workerRole(process.env));
}

/** A start the configuration does not allow: said on standard error, exit 2 as a CLI mistake. */
function refuse(message: string): void {
  process.stderr.write(`blockgate start: ${message}\n`);
  process.exit(2);
}

async function logDestination(config: Config): Promise<DestinationStream | undefined> {
  const pretty =
    config.log.format === "pretty" ||
    (config.log.format === "auto" && process.stdout.isTTY === true);
  return pretty ? prettyDestination(process.stderr.isTTY === true) : undefined;
}

/** One gateway in this process: alone, or as one worker of several (`worker`). */
async function serve(
  config: Config,
  logDestination: DestinationStream | undefined,
  worker: WorkerRole | null,
): Promise<void> {
  // Loaded here, not at the top: a primary of workers never runs a gateway of its own.
  const [{ openStore, startGateway }, { startupBanner }, { prepareDemo }, { attachDevnet }] =
    await Promise.all([
      import("./app/app.ts"),
      import("./app/banner.ts"),
      import("./app/demo.ts"),
      import("./routes/admin/devnet-control.ts"),
    ]);
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
  const gateway = await startGateway(config, {
    ...(logDestination ? { logDestination } : {}),
    ...(worker ? { worker } : {}),
    store,
    databaseUrl: process.env.DATABASE_URL,
    redisUrl: process.env.REDIS_URL,
    nodeUpstreams: resolveNodeUpstreams(config, devnet),
    graphUpstreams: resolveGraphUpstreams(config, devnet),
    electrumUpstreams: resolveElectrumUpstreams(config, devnet),
    esploraUpstreams: resolveEsploraUpstreams(config, devnet),
  });
  if (devnet) attachDevnet(gateway.app, devnet.producers);
  // Of several workers, one prints the banner (and makes the demo account): the first of slot 0.
  if (!worker || announces(process.env)) {
    const where = `store: ${process.env.DATABASE_URL ? "PostgreSQL (DATABASE_URL)" : `PGlite in ${config.database.pgliteDir}`}${devnet ? "; upstreams: devnet" : ""}`;
    const demo = config.demo.enabled
      ? await prepareDemo(gateway.app.db, config.demo.credits)
      : null;
    const httpsUrl = gateway.http.https?.url ?? null;
    const banner = startupBanner(config, gateway.url, where, demo, httpsUrl);
    // On a terminal the banner stands apart from the log lines around it.
    process.stdout.write(process.stdout.isTTY ? `\n${banner}\n` : banner);
  }
  if (worker) announceReady(gateway.url);
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
