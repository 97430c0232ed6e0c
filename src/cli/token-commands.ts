import {
  issueToken,
  listTokens,
  restrictToken,
  revokeToken,
  rotateToken,
} from "../access/tokens.ts";
import { type DbCommand, done, idOf, namedAccount, UsageError, type Values } from "./db-command.ts";
import { durationMs, expiryFrom, scopeFrom, tokenLine } from "./token-terms.ts";

const SCOPE = ["backends", "networks", "methods", "origins", "ips"] as const;
const SCOPE_USAGE =
  "[--backends B,…] [--networks N,…] [--methods M,…] [--origins O,…] [--ips CIDR,…]";
const NO_TOKEN = { text: "no live token matched", code: 1 };

/** The scope the options give, or null; a bad value is the user's mistake (exit 2). */
function scopeOption(values: Values) {
  const given = scopeFrom(values);
  if ("problem" in given) throw new UsageError(given.problem);
  return given.scope;
}

/** `blockgate token …`. */
export const TOKEN_COMMANDS: Record<string, DbCommand> = {
  "token issue": {
    usage: `token issue <account> [--label L] [--expires 30d | ISO 8601 instant] ${SCOPE_USAGE}`,
    options: ["label", "expires", ...SCOPE],
    arity: [1, 1],
    async run({ db }, [ref], values) {
      const scope = scopeOption(values);
      let expiresAt: Date | null = null;
      if (values.expires !== undefined) {
        expiresAt = expiryFrom(values.expires);
        if (!expiresAt) {
          throw new UsageError("--expires: a duration (30d, 12h) or a future ISO 8601 instant");
        }
      }
      const owner = await namedAccount(db, ref);
      const issued = await issueToken(db, owner.id, { label: values.label, scope, expiresAt });
      return done(
        `token ${issued.id} for ${owner.name} (shown once, store it now):\n${issued.token}`,
      );
    },
  },
  "token restrict": {
    usage: `token restrict <token-id> ${SCOPE_USAGE} | --unrestricted`,
    options: ["unrestricted", ...SCOPE],
    arity: [1, 1],
    async run({ db }, [ref], values) {
      const id = idOf(ref, "a token");
      const scope = scopeOption(values);
      if (values.unrestricted && scope) {
        throw new UsageError("either a scope or --unrestricted, not both");
      }
      if (!scope && !values.unrestricted) {
        throw new UsageError("give the new scope (--backends … --ips), or --unrestricted");
      }
      const row = await restrictToken(db, id, scope);
      return row ? done(tokenLine(row)) : NO_TOKEN;
    },
  },
  "token rotate": {
    usage: "token rotate <token-id> [--grace 24h]",
    options: ["grace"],
    arity: [1, 1],
    async run({ db }, [ref], values) {
      const id = idOf(ref, "a token");
      const graceMs = durationMs(values.grace ?? "24h");
      if (graceMs === null) throw new UsageError("--grace: a duration such as 90s, 30m, 24h, 7d");
      const rotated = await rotateToken(db, id, graceMs);
      if (!rotated) return NO_TOKEN;
      return done(
        `token ${rotated.issued.id} replaces token ${id}, which works until ${rotated.oldExpiresAt.toISOString()} (shown once, store it now):\n${rotated.issued.token}`,
      );
    },
  },
  "token list": {
    usage: "token list <account>",
    options: [],
    arity: [1, 1],
    async run({ db }, [ref]) {
      const owner = await namedAccount(db, ref);
      const rows = await listTokens(db, owner.id);
      return done(rows.map((t) => tokenLine(t)).join("\n") || "no tokens");
    },
  },
  "token revoke": {
    usage: "token revoke <token-id | token>",
    options: [],
    arity: [1, 1],
    async run({ db }, [ref]) {
      const revoked = await revokeToken(
        db,
        /^\d+$/.test(ref!) ? { id: Number(ref) } : { token: ref! },
      );
      return revoked ? done("revoked") : NO_TOKEN;
    },
  },
};
