import type { TokenOwner } from "../access/tokens.ts";
import { addressToScript } from "../bitcoin/address.ts";
import { type Config, NETWORK_NAMES, type NetworkName } from "../config/schema.ts";
import type { Queryable } from "../db/database.ts";
import { type EventName, validTargets } from "../events/sources.ts";
import { newSecret } from "./signing.ts";
import { countLiveEndpoints, createEndpoint, type Endpoint, type EndpointArgs } from "./store.ts";
import type { TargetPolicy } from "./targets.ts";

/**
 * The events an endpoint may follow (an Electrum socket's header push is not one). All but
 * creditsLow are chain events; creditsLow is the account's balance going under its threshold.
 */
export const WEBHOOK_EVENTS = [
  "newBlock",
  "transactionConfirmations",
  "addressActivity",
  "mempoolFees",
  "creditsLow",
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export interface EndpointInput {
  url: string;
  network: string;
  event: string;
  args: EndpointArgs;
  description?: string | null;
}

/** A registration refused: why, in words for the account. */
export class Refused extends Error {}

/**
 * Registers an endpoint for the token `owner` (the GraphQL mutation, the dashboard and the CLI
 * all come here): its event and arguments checked as the matching subscription checks them, its
 * network one the gateway serves and the token may use, its URL one the target policy allows,
 * and the account within `webhooks.endpointsPerAccountMax`. Returns it with its signing secret,
 * which is shown this once.
 */
export async function registerEndpoint(
  db: Queryable,
  config: Config,
  policy: TargetPolicy,
  owner: TokenOwner,
  input: EndpointInput,
): Promise<{ endpoint: Endpoint; secret: string }> {
  if (!(WEBHOOK_EVENTS as readonly string[]).includes(input.event)) {
    throw new Refused(`event: one of ${WEBHOOK_EVENTS.join(", ")}`);
  }
  const event = input.event as EventName;
  if (!(NETWORK_NAMES as readonly string[]).includes(input.network)) {
    throw new Refused(`network: one of ${NETWORK_NAMES.join(", ")}`);
  }
  const network = input.network as NetworkName;
  if (!config.networks.includes(network)) {
    throw new Refused(`network: ${network} is not served by this gateway`);
  }
  const scope = owner.scope;
  if (
    scope &&
    ((scope.backends && !scope.backends.has("gateway")) ||
      (scope.networks && !scope.networks.has(network)) ||
      (scope.methods && !scope.methods.has(event)))
  ) {
    throw new Refused(`the token's scope does not allow ${event} on ${network} (backend gateway)`);
  }
  if (event !== "newBlock" && !config.upstreams.node?.[network]) {
    throw new Refused(`${event} needs a full node, and ${network} has none here`);
  }
  const args = checkedArgs(event, network, input.args);
  if (input.description && input.description.length > 200) {
    throw new Refused("description: at most 200 characters");
  }
  const refused = await policy.check(input.url);
  if (refused) throw new Refused(refused);
  const held = await countLiveEndpoints(db, owner.accountId);
  if (held >= config.webhooks.endpointsPerAccountMax) {
    throw new Refused(
      `the account holds ${held} endpoints, the most it may (webhooks.endpointsPerAccountMax)`,
    );
  }
  const secret = newSecret();
  const endpoint = await createEndpoint(db, {
    accountId: owner.accountId,
    tokenId: owner.tokenId,
    network,
    url: input.url,
    event,
    args,
    description: input.description ?? null,
    secret,
  });
  return { endpoint, secret };
}

/** The event's arguments, checked, with their defaults; others refused. */
function checkedArgs(event: EventName, network: NetworkName, given: EndpointArgs): EndpointArgs {
  const named = Object.entries(given)
    .filter(([, v]) => v !== undefined && v !== null)
    .map(([k]) => k);
  const allowed: Record<string, readonly string[]> = {
    newBlock: [],
    transactionConfirmations: ["txid", "until"],
    mempoolFees: ["targets"],
    addressActivity: ["address"],
    creditsLow: [],
  };
  const extra = named.find((k) => !(allowed[event] ?? []).includes(k));
  if (extra) throw new Refused(`${extra}: not an argument of ${event}`);
  switch (event) {
    case "transactionConfirmations": {
      if (!given.txid || !/^[0-9a-fA-F]{64}$/.test(given.txid)) {
        throw new Refused("txid: 64 hexadecimal characters");
      }
      const until = given.until ?? 6;
      if (!Number.isInteger(until) || until < 1 || until > 1000) {
        throw new Refused("until: a whole number of confirmations, 1 – 1000");
      }
      return { txid: given.txid.toLowerCase(), until };
    }
    case "addressActivity": {
      if (!given.address || addressToScript(given.address, network) === null) {
        throw new Refused(`address: not a ${network} address`);
      }
      return { address: given.address };
    }
    case "mempoolFees": {
      const targets = given.targets ?? [1, 6, 144];
      if (!validTargets(targets)) throw new Refused("targets: 1 to 25 of 1 – 1008 blocks");
      return { targets };
    }
    default:
      return {};
  }
}
