// Top-ups through the unified API: the mutation asks an invoice, Account lists it; free.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueToken } from "../../src/access/tokens.ts";
import { gql } from "../support/graphql.ts";
import { startTestGateway, type TestGateway } from "../support/harness.ts";
import { TOPUP_DESCRIPTOR } from "./support.ts";

let t: TestGateway;
let url: string;
let accountId: number;

beforeAll(async () => {
  t = await startTestGateway("pglite", {
    networks: ["regtest"],
    billing: {
      topups: {
        network: "regtest",
        descriptor: TOPUP_DESCRIPTOR,
        satsPer1000Credits: 100,
        minimumSats: 1000,
        openPerAccountMax: 2,
      },
    },
  });
  const account = await t.account("api-topups", 0);
  accountId = account.id;
  url = `${t.url}/gateway/regtest/${account.token}`;
}, 60_000);
afterAll(() => t?.close());

const CREATE = `mutation($c: Credits!) { createTopup(credits: $c) {
  id address network sats credits bip21 qrSvg status paidSats confirmations expiresAt } }`;

describe("top-ups in the unified API", () => {
  it("createTopup answers the invoice with its payment request and QR code, free", async () => {
    const res = await gql<{ createTopup: Record<string, unknown> }>(url, CREATE, { c: 250_000 });
    expect(res.body.errors).toBeUndefined();
    const inv = res.body.data!.createTopup;
    expect(inv).toMatchObject({
      network: "regtest",
      sats: 25_000,
      credits: 250_000,
      status: "open",
      paidSats: 0,
      confirmations: 1,
    });
    expect(inv.bip21).toBe(`bitcoin:${inv.address}?amount=0.00025&label=blockgate%20credits`);
    expect(inv.qrSvg).toMatch(/^<svg/);
    expect(res.headers.get("x-credits-charged") ?? "0").toBe("0");

    const listed = await gql<{ account: { topups: { id: string }[]; topup: { status: string } } }>(
      url,
      `query($id: ID!) { account { topups { id } topup(id: $id) { status } } }`,
      { id: inv.id },
    );
    expect(listed.body.data!.account.topups.map((i) => i.id)).toEqual([inv.id]);
    expect(listed.body.data!.account.topup.status).toBe("open");
  });

  it("refuses under the minimum, past the open invoices, and to a scoped token", async () => {
    const small = await gql(url, CREATE, { c: 1_000 });
    expect(small.body.errors![0]!.extensions!.code).toBe("BAD_USER_INPUT");
    expect(small.body.errors![0]!.message).toContain("at least 1000 sats");
    await gql(url, CREATE, { c: 100_000 });
    const third = await gql(url, CREATE, { c: 100_000 });
    expect(third.body.errors![0]!.message).toContain("2 open invoices already");
    const scoped = await issueToken(t.gateway.app.db, accountId, {
      scope: { networks: ["regtest"] },
    });
    const refused = await gql(`${t.url}/gateway/regtest/${scoped.token}`, CREATE, { c: 100_000 });
    expect(refused.body.errors![0]!.extensions!.code).toBe("SCOPE_METHOD");
  });

  it("another account's invoice is not found through this one", async () => {
    const other = await t.account("api-topups-other", 0);
    const theirs = await gql<{ createTopup: { id: string } }>(
      `${t.url}/gateway/regtest/${other.token}`,
      CREATE,
      { c: 100_000 },
    );
    const seen = await gql<{ account: { topup: null } }>(
      url,
      `query($id: ID!) { account { topup(id: $id) { id } } }`,
      {
        id: theirs.body.data!.createTopup.id,
      },
    );
    expect(seen.body.data!.account.topup).toBeNull();
  });
});
