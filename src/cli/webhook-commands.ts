import { liveOwner } from "../auth/tokens.ts";
import type { Config } from "../config/schema.ts";
import type { Database } from "../db/database.ts";
import { Refused, registerEndpoint } from "../webhooks/register.ts";
import { endEndpoint, listEndpoints, recentAttempts } from "../webhooks/store.ts";
import { TargetPolicy } from "../webhooks/targets.ts";

/** The options `blockgate webhook …` reads (parseArgs, beside the other commands'). */
export const WEBHOOK_OPTIONS = {
  event: { type: "string" },
  network: { type: "string" },
  txid: { type: "string" },
  address: { type: "string" },
  until: { type: "string" },
  targets: { type: "string" },
  description: { type: "string" },
} as const;

type Values = Partial<Record<keyof typeof WEBHOOK_OPTIONS | "limit", string | undefined>>;

/** What a webhook command printed and its exit code; a usage mistake is thrown as `mistake`. */
export async function runWebhookCommand(
  db: Database,
  config: Config,
  verb: string | undefined,
  rest: string[],
  values: Values,
  mistake: (message: string) => Error,
  account: (ref: string | undefined) => Promise<{ id: number; name: string }>,
): Promise<{ text: string; code: number }> {
  const id = (ref: string | undefined, what: string) => {
    if (!ref || !/^\d+$/.test(ref)) throw mistake(`name ${what} by its id`);
    return Number(ref);
  };
  switch (verb) {
    case "add": {
      const tokenId = id(rest[0], "the token the endpoint acts for (token list)");
      const url = rest[1];
      if (!url) throw mistake("give the endpoint's URL");
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
        return {
          text: `webhook ${e.id}: ${e.event} on ${e.network} → ${e.url}, for token ${e.tokenId}\nsigning secret (shown once, store it now):\n${made.secret}`,
          code: 0,
        };
      } catch (err) {
        if (err instanceof Refused) throw mistake(err.message);
        throw err;
      }
    }
    case "list": {
      const owner = await account(rest[0]);
      const rows = await listEndpoints(db, owner.id);
      const lines = rows.map(
        (e) =>
          `${e.id}\t${e.endedAt ? `ended (${e.endedWhy ?? ""})` : "live"}\t${e.event}\t${e.network}\t${e.url}\ttoken ${e.tokenId}`,
      );
      return { text: lines.join("\n") || "no webhooks", code: 0 };
    }
    case "attempts": {
      const endpointId = id(rest[0], "a webhook");
      const limit = values.limit === undefined ? 20 : Number(values.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
        throw mistake("--limit: 1 to 1000");
      }
      const rows = await recentAttempts(db, endpointId, limit);
      const lines = rows.map(
        (a) =>
          `${a.at.toISOString()}\t${a.messageId}\t#${a.attempt}\t${a.result}\t${a.httpStatus ?? "-"}\t${a.latencyMs} ms${a.error ? `\t${a.error}` : ""}`,
      );
      return { text: lines.join("\n") || "no attempts", code: 0 };
    }
    case "rm": {
      const endpointId = id(rest[0], "a webhook");
      return (await endEndpoint(db, endpointId, "deleted"))
        ? { text: `webhook ${endpointId} deleted`, code: 0 }
        : { text: `no live webhook ${endpointId}`, code: 1 };
    }
    default:
      throw mistake("webhook add | list | attempts | rm");
  }
}
