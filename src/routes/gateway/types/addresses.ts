import type { Network } from "../../../bitcoin/index.ts";
import { builder, type FieldFanOut } from "../builder.ts";
import { codedError } from "../errors.ts";
import { AddressRef, addressModel } from "./address.ts";

/** Bad addresses named in the refusal, at most. */
const NAMED_MAX = 5;

builder.queryFields((t) => ({
  addresses: t.field({
    type: [AddressRef],
    description:
      "Several addresses of the route's network in one request (at most graphql.listItemsMax), in the order given. What is selected of them is asked of Electrum together — one JSON-RPC batch per graphql.batchSize calls — and priced per address, so the estimate knows the list's length before anything runs. One address not of the network refuses the whole list, naming it, before any call.",
    args: { list: t.arg.stringList({ required: true }) },
    extensions: { fanOut: { listArg: "list", default: 1 } satisfies FieldFanOut },
    resolve: (_root, { list }, ctx) => {
      const models = list.map((a) => addressModel(a, ctx.network as Network));
      const bad = list.filter((_, i) => models[i] === null);
      if (bad.length > 0) {
        const named = bad.slice(0, NAMED_MAX).join(", ");
        const more = bad.length > NAMED_MAX ? ` and ${bad.length - NAMED_MAX} more` : "";
        throw codedError("INVALID_PARAMS", `not addresses of ${ctx.network}: ${named}${more}`, {
          addresses: bad.slice(0, NAMED_MAX),
        });
      }
      return models.filter((m) => m !== null);
    },
  }),
}));
