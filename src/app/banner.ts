import { eventPrice } from "../billing/pricing/prices.ts";
import type { Config } from "../config/schema.ts";
import type { DemoAccount } from "./demo.ts";

const HAL_TXID = "f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16";

/** What `npm start` prints: where it listens and, with the demo account, calls to paste. */
export function startupBanner(
  config: Config,
  url: string,
  where: string,
  demo: DemoAccount | null,
  httpsUrl: string | null = null,
): string {
  const lines = [
    `blockgate listening on ${url}${httpsUrl ? ` and ${httpsUrl}` : ""}  (${where})`,
    `What it serves, and where to go next: ${url}/`,
    `Your usage, keys and webhooks (sign in with a token): ${url}/dashboard`,
  ];
  if (!demo) return `${lines.join("\n")}\n`;
  // An earlier start's token is not known in clear any more: the calls name it as $TOKEN.
  const token = demo.token ?? "$TOKEN";
  lines.push(
    `demo account "demo": ${demo.balance} CC available${demo.created ? " (created now)" : ""}`,
    demo.token
      ? `its token (shown once, stored hashed; it keeps working across restarts): ${demo.token}`
      : `its token: ${demo.hint}, printed by the start that issued it and still valid; ` +
          "set TOKEN to it, or issue another: npx blockgate token issue demo",
    "",
    "Try it — the first Bitcoin payment, Satoshi to Hal Finney (200 CC on mainnet):",
    `curl -s ${url}/${config.backends.node}/mainnet/${token} -H 'content-type: application/json' \\`,
    `  -d '{"jsonrpc":"2.0","id":1,"method":"getrawtransaction","params":["${HAL_TXID}"]}'`,
    "",
    "The same transaction, decoded, from the Electrum backend (100 CC on mainnet):",
    `curl -s ${url}/${config.backends.electrum}/mainnet/${token} -H 'content-type: application/json' \\`,
    `  -d '{"jsonrpc":"2.0","id":1,"method":"blockchain.transaction.get","params":["${HAL_TXID}",true]}'`,
    "",
    "Or ask the block indexer for the latest block (300 CC plus its complexity):",
    `curl -s ${url}/${config.backends.graph}/mainnet/${token} -H 'content-type: application/json' \\`,
    `  -d '{"query":"{ block(limit: 1, order_by: {height: desc}) { hash height transactions(limit: 2) { hash size_bytes } } }"}'`,
    "",
    ...liveBlocks(config, url, token),
    "Then see what it cost: npx blockgate usage demo",
    `Explore the unified GraphQL API in a browser (GraphiQL): ${url}/${config.backends.gateway}/mainnet/${token}`,
    `Every method the node and Electrum routes serve, with its price and an example: ${url}/methods`,
  );
  return `${lines.join("\n")}\n`;
}

/**
 * With devnet mining on a timer (npm start: regtest every 10 s), a subscription to paste: each
 * block arrives over Server-Sent Events as devnet makes it, charged per block.
 */
function liveBlocks(config: Config, url: string, token: string): string[] {
  const network = config.devnet.blockNetworks.find((n) => config.networks.includes(n));
  if (config.devnet.blockIntervalMs === 0 || !network) return [];
  const seconds = config.devnet.blockIntervalMs / 1000;
  return [
    `Watch ${network} blocks arrive as devnet makes them (one every ${seconds} s; ${eventPrice(config, "newBlock", network)} CC each), or use \`npx blockgate devnet mine\`:`,
    `curl -sN ${url}/${config.backends.gateway}/${network}/${token} -H 'content-type: application/json' -H 'accept: text/event-stream' \\`,
    `  -d '{"query":"subscription { newBlock { kind height hash } }"}'`,
    "",
  ];
}
