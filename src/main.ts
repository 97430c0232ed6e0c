import { startGateway } from "./app/app.ts";
import { prepareDemo } from "./app/demo.ts";
import {
  devnetNetworks,
  resolveElectrumUpstreams,
  resolveGraphUpstreams,
  resolveNodeUpstreams,
} from "./app/upstreams.ts";
import { ConfigError, loadConfig } from "./config/load.ts";
import { startDevnet } from "./devnet/devnet.ts";

/** `npm start`: config file from BLOCKGATE_CONFIG (none: devnet defaults), then serve. */
async function main(): Promise<void> {
  const config = loadConfig(process.env.BLOCKGATE_CONFIG);
  const devNets = devnetNetworks(config);
  const devnet = devNets.length > 0 ? await startDevnet(devNets) : null;
  const gateway = await startGateway(config, {
    databaseUrl: process.env.DATABASE_URL,
    nodeUpstreams: resolveNodeUpstreams(config, devnet),
    graphUpstreams: resolveGraphUpstreams(config, devnet),
    electrumUpstreams: resolveElectrumUpstreams(config, devnet),
  });
  const store = process.env.DATABASE_URL
    ? "PostgreSQL (DATABASE_URL)"
    : `PGlite in ${config.database.pgliteDir}`;
  const lines = [
    `blockgate listening on ${gateway.url}  (store: ${store}${devnet ? "; upstreams: devnet" : ""})`,
  ];
  if (config.demo.enabled) {
    const demo = await prepareDemo(gateway.app.db, config.demo.credits);
    const nodeSegment = config.backends.node;
    lines.push(
      `demo account "demo": ${demo.balance} CC available${demo.created ? " (created now)" : ""}`,
      `its token (shown once; each start issues a new one and revokes the last): ${demo.token}`,
      "",
      "Try it — the first Bitcoin payment, Satoshi to Hal Finney (200 CC on mainnet):",
      `curl -s ${gateway.url}/${nodeSegment}/mainnet/${demo.token} -H 'content-type: application/json' \\`,
      `  -d '{"jsonrpc":"2.0","id":1,"method":"getrawtransaction","params":["f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16"]}'`,
      "",
      "The same transaction, decoded, from the Electrum backend (100 CC on mainnet):",
      `curl -s ${gateway.url}/${config.backends.electrum}/mainnet/${demo.token} -H 'content-type: application/json' \\`,
      `  -d '{"jsonrpc":"2.0","id":1,"method":"blockchain.transaction.get","params":["f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16",true]}'`,
      "",
      "Or ask the block indexer for the latest block (300 CC plus its complexity):",
      `curl -s ${gateway.url}/${config.backends.graph}/mainnet/${demo.token} -H 'content-type: application/json' \\`,
      `  -d '{"query":"{ block(limit: 1, order_by: {height: desc}) { hash height transactions(limit: 2) { hash size_bytes } } }"}'`,
      "",
      "Then see what it cost: npm run cli -- usage demo",
      `Explore the unified GraphQL API in a browser (GraphiQL): ${gateway.url}/${config.backends.gateway}/mainnet/${demo.token}`,
    );
  }
  process.stdout.write(`${lines.join("\n")}\n`);
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
