import { liveOwner } from "../access/tokens.ts";
import type { Config } from "../config/schema.ts";
import type { Database } from "../db/database.ts";
import { Refused, registerEndpoint } from "../webhooks/register.ts";
import { endEndpoint, listEndpoints, recentAttempts } from "../webhooks/store.ts";
import { TargetPolicy } from "../webhooks/targets.ts";
import {
  type CommandOutput,
  type DbCommand,
  done,
  idOf,
  namedAccount,
  UsageError,
  type Values,
} from "./db-command.ts";

/** `blockgate webhook …`. */
export const WEBHOOK_COMMANDS: Record<string, DbCommand> = {
  "webhook add": {
    usage:
      "webhook add <token-id> <url> [--event newBlock|transactionConfirmations|addressActivity|mempoolFees] [--network regtest] [--txid T] [--until N] [--address A] [--targets 1,6,144] [--description D]",
    options: ["event", "network", "txid", "until", "address", "targets", "description"],
    arity: [2, 2],
    run: ({ db, config }, [ref, url], values) => addWebhook(db, config, ref, url!, values),
  },
  "webhook list": {
    usage: "webhook list <account>",
    options: [],
    arity: [1, 1],
    async run({ db }, [ref]) {
      const owner = await namedAccount(db, ref);
      const rows = await listEndpoints(db, owner.id);
      const lines = rows.map(
        (e) =>
          `${e.id}\t${e.endedAt ? `ended (${e.endedWhy ?? ""})` : "live"}\t${e.event}\t${e.network}\t${e.url}\ttoken ${e.tokenId}`,
      );
      return done(lines.join("\n") || "no webhooks");
    },
  },
  "webhook attempts": {
    usage: "webhook attempts <webhook-id> [--limit N]",
    options: ["limit"],
    arity: [1, 1],
    async run({ db }, [ref], values) {
      const endpointId = idOf(ref, "a webhook");
      const limit = values.limit === undefined ? 20 : Number(values.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
        throw new UsageError("--limit: 1 to 1000");
      }
      const rows = await recentAttempts(db, endpointId, limit);
      const lines = rows.map(
        (a) =>
          `${a.at.toISOString()}\t${a.messageId}\t#${a.attempt}\t${a.result}\t${a.httpStatus ?? "-"}\t${a.latencyMs} ms${a.error ? `\t${a.error}` : ""}`,
      );
      return done(lines.join("\n") || "no attempts");
    },
  },
  "webhook rm": {
    usage: "webhook rm <webhook-id>",
    options: [],
    arity: [1, 1],
    async run({ db }, [ref]) {
      const endpointId = idOf(ref, "a webhook");
      return (await endEndpoint(db, endpointId, "deleted"))
        ? done(`webhook ${endpointId} deleted`)
        : { text: `no live webhook ${endpointId}`, code: 1 };
    },
  },
};

/** registerEndpoint checks every argument before it writes; its refusals are usage errors. */
async function addWebhook(
  db: Database,
  config: Config,
  ref: string | undefined,
  url: string,
  values: Values,
): Promise<CommandOutput> {
  const tokenId = idOf(ref, "the token the endpoint acts for (token list)");
  const owner = await liveOwner(db, tokenId);
  if (!owner) return { text: `no live token ${tokenId}`, code: 1 };
  const until = values.until === undefined ? undefined : Number(values.until);
  const targets = values.targets?.split(",").map((s) => Number(s.trim()));
  try {
    const made = await registerEndpoint(
      db,
      config,
      new TargetPolicy(config.webhooks.allowTargets),
      owner,
      {
        url,
        network: values.network ?? "regtest",
        event: values.event ?? "newBlock",
        args: {
          ...(values.txid ? { txid: values.txid } : {}),
          ...(values.address ? { address: values.address } : {}),
          ...(until !== undefined ? { until } : {}),
          ...(targets ? { targets } : {}),
        },
        description: values.description ?? null,
      },
    );
    const e = made.endpoint;
    return done(
      `webhook ${e.id}: ${e.event} on ${e.network} → ${e.url}, for token ${e.tokenId}\nsigning secret (shown once, store it now):\n${made.secret}`,
    );
  } catch (err) {
    if (err instanceof Refused) throw new UsageError(err.message);
    throw err;
  }
}
