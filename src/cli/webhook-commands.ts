import { liveOwner } from "../access/tokens.ts";
import type { Config } from "../config/schema.ts";
import type { Database } from "../db/database.ts";
import { Refused, registerEndpoint, WEBHOOK_EVENTS } from "../webhooks/register.ts";
import {
  type AttemptRow,
  type Endpoint,
  endEndpoint,
  listEndpoints,
  recentAttempts,
} from "../webhooks/store.ts";
import { TargetPolicy } from "../webhooks/targets.ts";
import { anId, network, webhookEvent, wholeNumber, wholeNumbers } from "./checks.ts";
import {
  type CommandOutput,
  type DbCommand,
  namedAccount,
  shown,
  text,
  UsageError,
  type Values,
} from "./db-command.ts";
import type { Table } from "./view.ts";

const WEBHOOK_ID = {
  name: "webhook-id",
  description: "the endpoint's id (webhook list)",
  check: anId,
};

const short = (at: Date) => at.toISOString().replace(/\.\d{3}Z$/, "Z");

const endpointJson = (e: Endpoint) => ({
  id: e.id,
  state: e.endedAt ? "ended" : "live",
  endedWhy: e.endedWhy,
  event: e.event,
  network: e.network,
  url: e.url,
  tokenId: e.tokenId,
  args: e.args,
  description: e.description,
  createdAt: e.createdAt.toISOString(),
});

const attemptJson = (a: AttemptRow) => ({
  at: a.at.toISOString(),
  messageId: a.messageId,
  attempt: a.attempt,
  result: a.result,
  httpStatus: a.httpStatus,
  latencyMs: a.latencyMs,
  error: a.error,
});

/** `blockgate webhook …`. */
export const WEBHOOK_COMMANDS: Record<string, DbCommand> = {
  "webhook add": {
    summary: "an endpoint told of events (its signing secret printed once)",
    usage:
      "<token-id> <url> [--event newBlock|transactionConfirmations|addressActivity|mempoolFees] [--network regtest] [--txid T] [--until N] [--address A] [--targets 1,6,144] [--description D]",
    operands: [
      { name: "token-id", description: "the token it acts for (token list)", check: anId },
      { name: "url", description: "where deliveries are POSTed" },
    ],
    options: [
      {
        name: "event",
        value: "E",
        description: `what it is told of: ${WEBHOOK_EVENTS.join(", ")} (default newBlock)`,
        check: webhookEvent,
      },
      { name: "network", value: "N", description: "the network (default regtest)", check: network },
      { name: "txid", value: "T", description: "transactionConfirmations: the transaction" },
      {
        name: "until",
        value: "N",
        description: "transactionConfirmations: stop after N confirmations",
        check: wholeNumber(1),
      },
      { name: "address", value: "A", description: "addressActivity: the address" },
      {
        name: "targets",
        value: "1,6,144",
        description: "mempoolFees: confirmation targets, in blocks",
        check: wholeNumbers,
      },
      { name: "description", value: "D", description: "a note for the account (200 characters)" },
    ],
    json: true,
    examples: [
      "webhook add 7 https://hooks.acme.example/blocks --network mainnet",
      "webhook add 7 https://hooks.acme.example/fees --event mempoolFees --targets 1,6 --network mainnet",
    ],
    run: ({ db, config }, [ref, url], values) => addWebhook(db, config, Number(ref), url!, values),
  },
  "webhook list": {
    summary: "an account's endpoints",
    usage: "<account>",
    operands: [{ name: "account", description: "the account's name or id" }],
    options: [],
    json: true,
    examples: ["webhook list acme"],
    async run({ db }, [ref], values) {
      const owner = await namedAccount(db, ref);
      const rows = await listEndpoints(db, owner.id);
      const lines = rows.map(
        (e) =>
          `${e.id}\t${e.endedAt ? `ended (${e.endedWhy ?? ""})` : "live"}\t${e.event}\t${e.network}\t${e.url}\ttoken ${e.tokenId}`,
      );
      return shown(values, rows.map(endpointJson), lines.join("\n") || "no webhooks", {
        parts: [{ table: endpointTable(rows) }],
      });
    },
  },
  "webhook attempts": {
    summary: "an endpoint's latest delivery attempts",
    usage: "<webhook-id> [--limit N]",
    operands: [WEBHOOK_ID],
    options: [
      {
        name: "limit",
        value: "N",
        description: "how many to list (default 20)",
        check: wholeNumber(1, 1000),
      },
    ],
    json: true,
    examples: ["webhook attempts 3 --limit 50"],
    async run({ db }, [ref], values) {
      const rows = await recentAttempts(db, Number(ref), Number(text(values, "limit") ?? 20));
      const lines = rows.map(
        (a) =>
          `${a.at.toISOString()}\t${a.messageId}\t#${a.attempt}\t${a.result}\t${a.httpStatus ?? "-"}\t${a.latencyMs} ms${a.error ? `\t${a.error}` : ""}`,
      );
      return shown(values, rows.map(attemptJson), lines.join("\n") || "no attempts", {
        parts: [{ table: attemptTable(rows) }],
      });
    },
  },
  "webhook rm": {
    summary: "end an endpoint: nothing more is sent to it",
    usage: "<webhook-id>",
    operands: [WEBHOOK_ID],
    options: [],
    json: true,
    examples: ["webhook rm 3"],
    async run({ db }, [ref], values) {
      const endpointId = Number(ref);
      return (await endEndpoint(db, endpointId, "deleted"))
        ? shown(values, { id: endpointId, deleted: true }, `webhook ${endpointId} deleted`)
        : { text: `no live webhook ${endpointId}`, code: 1 };
    },
  },
};

function endpointTable(rows: readonly Endpoint[]): Table {
  return {
    columns: [
      { header: "id", right: true },
      { header: "state" },
      { header: "event" },
      { header: "network" },
      { header: "url" },
      { header: "token", right: true },
    ],
    rows: rows.map((e) => [
      e.id,
      e.endedAt
        ? { text: `ended (${e.endedWhy ?? ""})`, tone: "dim" as const }
        : { text: "live", tone: "good" as const },
      e.event,
      e.network,
      e.url,
      e.tokenId,
    ]),
    empty: "no webhooks",
  };
}

function attemptTable(rows: readonly AttemptRow[]): Table {
  return {
    columns: [
      { header: "at" },
      { header: "message" },
      { header: "attempt", right: true },
      { header: "result" },
      { header: "http", right: true },
      { header: "latency ms", right: true },
      { header: "error" },
    ],
    rows: rows.map((a) => [
      short(a.at),
      a.messageId,
      a.attempt,
      { text: a.result, tone: a.result === "delivered" ? ("good" as const) : ("bad" as const) },
      a.httpStatus ?? "-",
      a.latencyMs,
      a.error ?? "",
    ]),
    empty: "no attempts",
  };
}

/** registerEndpoint checks every argument before it writes; its refusals are usage errors. */
async function addWebhook(
  db: Database,
  config: Config,
  tokenId: number,
  url: string,
  values: Values,
): Promise<CommandOutput> {
  const owner = await liveOwner(db, tokenId);
  if (!owner) return { text: `no live token ${tokenId}`, code: 1 };
  const until = text(values, "until");
  const targets = text(values, "targets")
    ?.split(",")
    .map((s) => Number(s.trim()));
  const txid = text(values, "txid");
  const address = text(values, "address");
  try {
    const made = await registerEndpoint(
      db,
      config,
      new TargetPolicy(config.webhooks.allowTargets),
      owner,
      {
        url,
        network: text(values, "network") ?? "regtest",
        event: text(values, "event") ?? "newBlock",
        args: {
          ...(txid ? { txid } : {}),
          ...(address ? { address } : {}),
          ...(until !== undefined ? { until: Number(until) } : {}),
          ...(targets ? { targets } : {}),
        },
        description: text(values, "description") ?? null,
      },
    );
    const e = made.endpoint;
    return shown(
      values,
      { ...endpointJson(e), secret: made.secret },
      `webhook ${e.id}: ${e.event} on ${e.network} → ${e.url}, for token ${e.tokenId}\nsigning secret (shown once, store it now):\n${made.secret}`,
    );
  } catch (err) {
    if (err instanceof Refused) throw new UsageError(err.message);
    throw err;
  }
}
