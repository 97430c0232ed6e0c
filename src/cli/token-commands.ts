import {
  issueToken,
  listTokens,
  restrictToken,
  revokeToken,
  rotateToken,
} from "../access/tokens.ts";
import { anId, duration, expiry, scopeKey, tokenRef } from "./checks.ts";
import {
  type DbCommand,
  type Flag,
  namedAccount,
  shown,
  text,
  UsageError,
  type Values,
} from "./db-command.ts";
import {
  durationMs,
  expiryFrom,
  scopeFrom,
  tokenJson,
  tokenLine,
  tokenTable,
} from "./token-terms.ts";

const SCOPE_KEYS = ["backends", "networks", "methods", "origins", "ips"] as const;
const SCOPE_USAGE =
  "[--backends B,…] [--networks N,…] [--methods M,…] [--origins O,…] [--ips CIDR,…]";
const SCOPE_HELP: Record<(typeof SCOPE_KEYS)[number], [string, string]> = {
  backends: ["B,…", "backends it may call: node, electrum, graph, gateway"],
  networks: ["N,…", "networks it may call: mainnet, testnet, testnet4, signet, regtest"],
  methods: ["M,…", "methods it may call (getrawtransaction, …; graphql for the unified API)"],
  origins: ["O,…", "browser origins it may be used from (https://app.example, or *), for CORS"],
  ips: ["CIDR,…", "client addresses it may be used from (203.0.113.0/24, 2001:db8::/32)"],
};
const SCOPE: Flag[] = SCOPE_KEYS.map((key) => ({
  name: key,
  value: SCOPE_HELP[key][0],
  description: SCOPE_HELP[key][1],
  check: scopeKey(key),
}));
const NO_TOKEN = { text: "no live token matched", code: 1 };
const TOKEN_ID = { name: "token-id", description: "the token's id (token list)", check: anId };

/** The scope the options give, or null; a bad value is the user's mistake (exit 2). */
function scopeOption(values: Values) {
  const given = scopeFrom(Object.fromEntries(SCOPE_KEYS.map((k) => [k, text(values, k)])));
  if ("problem" in given) throw new UsageError(given.problem);
  return given.scope;
}

/** `blockgate token …`. */
export const TOKEN_COMMANDS: Record<string, DbCommand> = {
  "token issue": {
    summary: "issue an access token (printed once, stored hashed)",
    usage: `<account> [--label L] [--expires 30d | ISO 8601 instant] ${SCOPE_USAGE}`,
    operands: [{ name: "account", description: "the account's name or id" }],
    options: [
      { name: "label", value: "L", description: "a name to tell it apart in token list" },
      {
        name: "expires",
        value: "WHEN",
        description: "when it stops working: a duration (30d, 12h) or an ISO 8601 instant",
        check: expiry,
      },
      ...SCOPE,
    ],
    json: true,
    examples: [
      "token issue acme --label ci",
      "token issue acme --label web --origins https://app.acme.example --backends gateway --expires 90d",
    ],
    async run({ db }, [ref], values) {
      const scope = scopeOption(values);
      const expires = text(values, "expires");
      const expiresAt = expires === undefined ? null : expiryFrom(expires);
      const owner = await namedAccount(db, ref);
      const label = text(values, "label");
      const issued = await issueToken(db, owner.id, { label, scope, expiresAt });
      return shown(
        values,
        { id: issued.id, account: owner.name, token: issued.token },
        `token ${issued.id} for ${owner.name} (shown once, store it now):\n${issued.token}`,
      );
    },
  },
  "token restrict": {
    summary: "replace a token's scope",
    usage: `<token-id> ${SCOPE_USAGE} | --unrestricted`,
    operands: [TOKEN_ID],
    options: [...SCOPE, { name: "unrestricted", description: "lift every restriction" }],
    json: true,
    examples: [
      "token restrict 7 --networks mainnet --ips 10.0.0.0/8",
      "token restrict 7 --unrestricted",
    ],
    async run({ db }, [ref], values) {
      const scope = scopeOption(values);
      if (values.unrestricted && scope) {
        throw new UsageError("either a scope or --unrestricted, not both");
      }
      if (!scope && !values.unrestricted) {
        throw new UsageError("give the new scope (--backends … --ips), or --unrestricted");
      }
      const row = await restrictToken(db, Number(ref), scope);
      return row ? shown(values, tokenJson(row), tokenLine(row)) : NO_TOKEN;
    },
  },
  "token rotate": {
    summary: "a new token; the old one works until the grace period ends",
    usage: "<token-id> [--grace 24h]",
    operands: [TOKEN_ID],
    options: [
      {
        name: "grace",
        value: "DURATION",
        description: "how long the old token keeps working (default 24h)",
        check: duration,
      },
    ],
    json: true,
    examples: ["token rotate 7 --grace 1h"],
    async run({ db }, [ref], values) {
      const id = Number(ref);
      const rotated = await rotateToken(db, id, durationMs(text(values, "grace") ?? "24h")!);
      if (!rotated) return NO_TOKEN;
      const { issued, oldExpiresAt } = rotated;
      return shown(
        values,
        {
          id: issued.id,
          replaces: id,
          oldWorksUntil: oldExpiresAt.toISOString(),
          token: issued.token,
        },
        `token ${issued.id} replaces token ${id}, which works until ${oldExpiresAt.toISOString()} (shown once, store it now):\n${issued.token}`,
      );
    },
  },
  "token list": {
    summary: "an account's tokens (hints only)",
    usage: "<account>",
    operands: [{ name: "account", description: "the account's name or id" }],
    options: [],
    json: true,
    examples: ["token list acme"],
    async run({ db }, [ref], values) {
      const owner = await namedAccount(db, ref);
      const rows = await listTokens(db, owner.id);
      return shown(
        values,
        rows.map((t) => tokenJson(t)),
        rows.map((t) => tokenLine(t)).join("\n") || "no tokens",
        { parts: [{ table: tokenTable(rows) }] },
      );
    },
  },
  "token revoke": {
    summary: "revoke a token; its next request gets 401",
    usage: "<token-id | token>",
    operands: [
      {
        name: "token",
        description: "the token's id (token list), or the token itself",
        check: tokenRef,
      },
    ],
    options: [],
    json: true,
    examples: ["token revoke 7"],
    async run({ db }, [ref], values) {
      const byId = anId(ref!) === null;
      const revoked = await revokeToken(db, byId ? { id: Number(ref) } : { token: ref! });
      return revoked ? shown(values, { revoked: true }, "revoked") : NO_TOKEN;
    },
  },
};
