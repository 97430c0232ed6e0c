import { type TokenScope, tokenScopeSchema } from "../../../access/scope.ts";
import {
  findToken,
  issueToken,
  listTokens,
  restrictToken,
  revokeToken,
  rotateToken,
  type TokenRow,
} from "../../../access/tokens.ts";
import { builder } from "../builder.ts";
import type { GraphQLContext } from "../context.ts";
import { codedError } from "../errors.ts";
import { AccountRef } from "./account.ts";

/**
 * Self-service keys: the account's own tokens, listed on Account and managed by four mutations.
 * Every path acts on the caller's account only (the store functions take its id, so another
 * account's token id matches nothing and reads as not found), and managing needs an unrestricted
 * token: a token limited to some backends or origins (a browser key) cannot mint itself a broader
 * one.
 */
const TokenStateEnum = builder.enumType("TokenState", {
  values: { LIVE: { value: "live" }, EXPIRED: { value: "expired" }, REVOKED: { value: "revoked" } },
});

const TokenScopeRef = builder.objectRef<TokenScope>("TokenScope").implement({
  description: "What a token may do; a null list is no restriction on that dimension.",
  fields: (t) => ({
    backends: t.stringList({ nullable: true, resolve: (s) => s.backends ?? null }),
    networks: t.stringList({ nullable: true, resolve: (s) => s.networks ?? null }),
    methods: t.stringList({ nullable: true, resolve: (s) => s.methods ?? null }),
    origins: t.stringList({ nullable: true, resolve: (s) => s.origins ?? null }),
    ips: t.stringList({ nullable: true, resolve: (s) => s.ips ?? null }),
  }),
});

const TokenScopeInput = builder.inputType("TokenScopeInput", {
  description:
    "A scope: backends (node, electrum, graph, gateway), networks, methods, browser origins (CORS), client address ranges (CIDR). Omitted lists restrict nothing.",
  fields: (t) => ({
    backends: t.stringList({ required: false }),
    networks: t.stringList({ required: false }),
    methods: t.stringList({ required: false }),
    origins: t.stringList({ required: false }),
    ips: t.stringList({ required: false }),
  }),
});

const TokenRef = builder.objectRef<TokenRow>("Token").implement({
  description: "An access token of the account, as its hint: the token itself is never stored.",
  fields: (t) => ({
    id: t.id({ resolve: (r) => String(r.id) }),
    hint: t.string({ resolve: (r) => r.hint }),
    label: t.string({ nullable: true, resolve: (r) => r.label }),
    createdAt: t.field({ type: "DateTime", resolve: (r) => r.createdAt }),
    expiresAt: t.field({ type: "DateTime", nullable: true, resolve: (r) => r.expiresAt }),
    revokedAt: t.field({ type: "DateTime", nullable: true, resolve: (r) => r.revokedAt }),
    state: t.field({
      type: TokenStateEnum,
      resolve: (r) =>
        r.revokedAt ? "revoked" : r.expiresAt && r.expiresAt <= new Date() ? "expired" : "live",
    }),
    scope: t.field({ type: TokenScopeRef, nullable: true, resolve: (r) => r.scope }),
    current: t.boolean({
      description: "The token this request was made with (or the dashboard signed in with).",
      resolve: (r, _a, ctx) => r.id === ctx.owner.tokenId,
    }),
  }),
});

interface Issued {
  token: string;
  info: TokenRow;
  previous?: TokenRow;
}

const IssuedTokenRef = builder.objectRef<Issued>("IssuedToken").implement({
  fields: (t) => ({
    token: t.string({
      description: "The new token, in clear: shown this once, stored only as its hash.",
      resolve: (i) => i.token,
    }),
    info: t.field({ type: TokenRef, resolve: (i) => i.info }),
    previous: t.field({
      type: TokenRef,
      nullable: true,
      description: "rotateToken: the replaced token, with the end of its grace period.",
      resolve: (i) => i.previous ?? null,
    }),
  }),
});

builder.objectField(AccountRef, "tokens", (t) =>
  t.field({
    type: [TokenRef],
    description: "The account's tokens (hints only), revoked and expired ones included. Free.",
    resolve: (a, _args, ctx) => listTokens(ctx.services.db, a.id),
  }),
);

/**
 * Managing keys (and webhooks, which act for a token) needs a token without a scope: a scoped
 * one cannot widen itself.
 */
export function manager(ctx: GraphQLContext, what = "tokens"): number {
  if (ctx.owner.scope) {
    throw codedError(
      "SCOPE_METHOD",
      `managing ${what} needs an unrestricted token; this one has a scope`,
      { scope: "method" },
    );
  }
  return ctx.owner.accountId;
}

function scopeOf(input: Record<string, readonly string[] | null | undefined> | null | undefined) {
  if (!input) return null;
  const given = Object.fromEntries(Object.entries(input).filter(([, v]) => v != null));
  if (Object.keys(given).length === 0) return null;
  const parsed = tokenScopeSchema.safeParse(given);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw codedError("INVALID_PARAMS", `scope.${issue.path.join(".")}: ${issue.message}`);
  }
  return parsed.data;
}

function tokenIdOf(id: string | number): number {
  const n = Number(id);
  if (!Number.isSafeInteger(n) || n <= 0) throw notFound(id);
  return n;
}

const notFound = (id: string | number) =>
  codedError("NOT_FOUND", `no live token ${id} on this account`);

async function rowOf(ctx: GraphQLContext, accountId: number, id: number): Promise<TokenRow> {
  const row = await findToken(ctx.services.db, accountId, id);
  if (!row) throw notFound(id);
  return row;
}

builder.mutationType({});

builder.mutationFields((t) => ({
  createToken: t.field({
    type: IssuedTokenRef,
    description: "Issues a token for your account, shown once. Needs an unrestricted token. Free.",
    args: {
      label: t.arg.string({ required: false }),
      scope: t.arg({ type: TokenScopeInput, required: false }),
      expiresAt: t.arg({ type: "DateTime", required: false }),
    },
    resolve: async (_root, args, ctx) => {
      const accountId = manager(ctx);
      if (args.label && args.label.length > 100) {
        throw codedError("INVALID_PARAMS", "label: at most 100 characters");
      }
      if (args.expiresAt && args.expiresAt.getTime() <= Date.now()) {
        throw codedError("INVALID_PARAMS", "expiresAt: must be in the future");
      }
      const issued = await issueToken(ctx.services.db, accountId, {
        label: args.label ?? null,
        scope: scopeOf(args.scope),
        expiresAt: args.expiresAt ?? null,
      });
      return { token: issued.token, info: await rowOf(ctx, accountId, issued.id) };
    },
  }),
  restrictToken: t.field({
    type: TokenRef,
    description: "Replaces a live token's scope (null: unrestricted); applies at once. Free.",
    args: {
      id: t.arg.id({ required: true }),
      scope: t.arg({ type: TokenScopeInput, required: false }),
    },
    resolve: async (_root, args, ctx) => {
      const accountId = manager(ctx);
      const row = await restrictToken(
        ctx.services.db,
        tokenIdOf(args.id),
        scopeOf(args.scope),
        accountId,
      );
      if (!row) throw notFound(args.id);
      return row;
    },
  }),
  rotateToken: t.field({
    type: IssuedTokenRef,
    description:
      "A new token with the same label and scope; the old one keeps working for graceSeconds (default a day). Free.",
    args: {
      id: t.arg.id({ required: true }),
      graceSeconds: t.arg.int({ required: false, defaultValue: 86_400 }),
    },
    resolve: async (_root, args, ctx) => {
      const accountId = manager(ctx);
      const grace = args.graceSeconds ?? 86_400;
      if (grace < 0 || grace > 30 * 86_400) {
        throw codedError("INVALID_PARAMS", "graceSeconds: 0 to 2592000 (30 days)");
      }
      const id = tokenIdOf(args.id);
      const rotated = await rotateToken(ctx.services.db, id, grace * 1000, accountId);
      if (!rotated) throw notFound(args.id);
      return {
        token: rotated.issued.token,
        info: await rowOf(ctx, accountId, rotated.issued.id),
        previous: await rowOf(ctx, accountId, id),
      };
    },
  }),
  revokeToken: t.field({
    type: TokenRef,
    description: "Revokes a token of your account: its next request gets 401. Free.",
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const accountId = manager(ctx);
      const id = tokenIdOf(args.id);
      if (!(await revokeToken(ctx.services.db, { id }, accountId))) throw notFound(args.id);
      return rowOf(ctx, accountId, id);
    },
  }),
}));
