// credits.low: an account's balance going under its threshold is told once per crossing to its
// creditsLow endpoints, signed as every delivery is (verified with the standardwebhooks package).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { grantCredits } from "../../src/billing/ledger/ledger.ts";
import { setLowBalance } from "../../src/billing/ledger/low-balance.ts";
import { gql } from "../support/graphql.ts";
import { startTestGateway, type TestGateway } from "../support/harness.ts";

interface Received {
  verified: boolean;
  body: { type: string; data: { account: string; balance: number; threshold: number } };
}

let t: TestGateway;
let receiver: Server;
let secret = "";
const received: Received[] = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c.toString();
    });
    req.on("end", () => {
      let verified = true;
      try {
        new Webhook(secret).verify(body, req.headers as Record<string, string>);
      } catch {
        verified = false;
      }
      received.push({ verified, body: JSON.parse(body) as Received["body"] });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  t = await startTestGateway("pglite", {
    networks: ["regtest"],
    webhooks: { allowTargets: ["127.0.0.1/32"], pollMs: 500 },
  });
}, 60_000);
afterAll(async () => {
  await t?.close();
  await new Promise((resolve) => receiver.close(resolve));
});

it("one signed credits.low per crossing under the threshold, none while over it", async () => {
  const { id, token } = await t.account("low", 500);
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/low`;
  const created = await gql<{ createWebhook: { secret: string } }>(
    `${t.url}/gateway/regtest/${token}`,
    `mutation($url: String!) { createWebhook(url: $url, event: creditsLow) { secret } }`,
    { url },
  );
  expect(created.body.errors).toBeUndefined();
  secret = created.body.data!.createWebhook.secret;
  const webhooks = t.gateway.webhooks;

  await setLowBalance(t.gateway.app.db, id, 100);
  await webhooks.lookAtLowBalances();
  expect(received).toEqual([]);

  await setLowBalance(t.gateway.app.db, id, 1_000);
  await webhooks.lookAtLowBalances();
  await webhooks.lookAtLowBalances();
  await vi.waitFor(() => expect(received).toHaveLength(1), { timeout: 10_000 });
  expect(received[0]).toEqual({
    verified: true,
    body: {
      type: "credits.low",
      timestamp: expect.any(String),
      data: { account: "low", balance: 500, threshold: 1_000 },
    },
  });

  // Back over it re-arms the warning; under it again is a new crossing.
  await grantCredits(t.gateway.app.db, id, 1_000);
  await webhooks.lookAtLowBalances();
  await setLowBalance(t.gateway.app.db, id, 2_000);
  await webhooks.lookAtLowBalances();
  await vi.waitFor(() => expect(received).toHaveLength(2), { timeout: 10_000 });
  expect(received[1]!.body.data).toEqual({ account: "low", balance: 1_500, threshold: 2_000 });
});
