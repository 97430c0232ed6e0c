import { addressToScript, type Network, toHex } from "../../../bitcoin/index.ts";
import { electrumScripthash } from "../../../bitcoin/scripthash.ts";
import { isJsonNumber, isJsonObject, type Json } from "../../../protocol/json/json.ts";
import { builder, type FieldCost } from "../builder.ts";
import { codedError } from "../errors.ts";
import { ask } from "../upstream-calls.ts";
import { Amount } from "./amount.ts";

export interface AddressModel {
  address: string;
  script: Uint8Array;
  scripthash: string;
}

export const sats = (v: Json | undefined): bigint => (isJsonNumber(v) ? BigInt(v.value) : 0n);
export const int = (v: Json | undefined): number => (isJsonNumber(v) ? Number(v.value) : 0);

export function listOf(answer: Json, what: string): { [key: string]: Json }[] {
  if (!Array.isArray(answer) || !answer.every((e) => isJsonObject(e))) {
    throw codedError("UPSTREAM_BAD_RESPONSE", `the Electrum server's ${what} is not a list`);
  }
  return answer as { [key: string]: Json }[];
}

export const BalanceRef = builder
  .objectRef<{ confirmed: bigint; unconfirmed: bigint }>("AddressBalance")
  .implement({
    description: "What the address holds (blockchain.scripthash.get_balance).",
    fields: (t) => ({
      confirmed: t.field({ type: Amount, resolve: (b) => b.confirmed }),
      unconfirmed: t.field({
        type: Amount,
        description: "The mempool's change to it; negative when the mempool spends from it.",
        resolve: (b) => b.unconfirmed,
      }),
    }),
  });

export const AddressRef = builder.objectRef<AddressModel>("Address").implement({
  description:
    "An address of the route's network, looked up through its Electrum servers by the script it stands for.",
  fields: (t) => ({
    address: t.string({ resolve: (a) => a.address }),
    scriptPubKey: t.field({ type: "Hex", resolve: (a) => toHex(a.script) }),
    scripthash: t.field({
      type: "Hex",
      description: "The Electrum protocol's script hash (sha256 of the script, reversed).",
      resolve: (a) => a.scripthash,
    }),
    balance: t.field({
      type: BalanceRef,
      extensions: { cost: { method: "blockchain.scripthash.get_balance" } satisfies FieldCost },
      resolve: async (a, _args, ctx) => {
        const answer = await ask(ctx.electrumCalls, {
          method: "blockchain.scripthash.get_balance",
          params: [a.scripthash],
        });
        if (!isJsonObject(answer))
          throw codedError("UPSTREAM_BAD_RESPONSE", "the balance is not an object");
        return { confirmed: sats(answer.confirmed), unconfirmed: sats(answer.unconfirmed) };
      },
    }),
  }),
});

builder.queryFields((t) => ({
  address: t.field({
    type: AddressRef,
    description:
      "An address of the route's network: its balance, history (paginated) and unspent outputs, each priced as its Electrum call. Free by itself; an address of another network is INVALID_PARAMS.",
    args: { address: t.arg.string({ required: true }) },
    resolve: (_root, { address }, ctx) => {
      const model = addressModel(address, ctx.network as Network);
      if (!model) {
        throw codedError("INVALID_PARAMS", `not an address of ${ctx.network}: ${address}`);
      }
      return model;
    },
  }),
}));

/** The address as the Address type holds it, or null when it is not one of `network`'s. */
export function addressModel(address: string, network: Network): AddressModel | null {
  const script = addressToScript(address, network);
  return script ? { address, script, scripthash: electrumScripthash(script) } : null;
}
