import { liveOwner } from "../../src/access/tokens.ts";
import { registerEndpoint } from "../../src/webhooks/register.ts";
import type { TestGateway } from "./harness.ts";

/** An account of its own (100 CC) with a `newBlock` endpoint on regtest at `url`. */
export async function newBlockEndpoint(t: TestGateway, name: string, url: string) {
  const account = await t.account(name, 100);
  const { db, config, webhookTargets } = t.gateway.app;
  const owner = (await liveOwner(db, account.tokenId))!;
  const made = await registerEndpoint(db, config, webhookTargets, owner, {
    url,
    network: "regtest",
    event: "newBlock",
    args: {},
  });
  return { ...account, endpointId: made.endpoint.id, secret: made.secret };
}
