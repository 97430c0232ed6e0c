import { BlockList, isIP } from "node:net";
import { z } from "zod";
import { NETWORK_NAMES } from "../config/schema.ts";
import { parseRange, RANGE_HINT } from "../util/address-range.ts";

/**
 * What a token may do, as stored (tokens.scope, JSON) and as given by the CLI, the dashboard and
 * the unified API. Every list is optional: absent means no restriction on that dimension; an empty
 * list is refused (it would make a token that can do nothing).
 */
export const BACKEND_KINDS = ["node", "electrum", "graph", "gateway", "esplora"] as const;

const list = <T extends z.ZodType>(item: T) => z.array(item).min(1).max(100).optional();

/** `scheme://host[:port]` as a browser sends it in Origin, or `*` for any origin. */
const origin = z.string().refine((value) => {
  if (value === "*") return true;
  try {
    const url = new URL(value);
    return url.origin === value && (url.protocol === "https:" || url.protocol === "http:");
  } catch {
    return false;
  }
}, "an origin is scheme://host[:port], without path or trailing slash (or *)");

/** An address (v4 or v6) or a CIDR range. */
const addressRange = z.string().refine((value) => parseRange(value) !== null, {
  message: RANGE_HINT,
});

export const tokenScopeSchema = z.strictObject({
  backends: list(z.enum(BACKEND_KINDS)),
  networks: list(z.enum(NETWORK_NAMES)),
  /** JSON-RPC methods, Hasura root fields (graph route); the unified API is one method, `graphql`. */
  methods: list(z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/)),
  origins: list(origin),
  ips: list(addressRange),
});

export type TokenScope = z.infer<typeof tokenScopeSchema>;

/** A scope made ready to check: sets and a BlockList, built once per token (cached with it). */
export interface CompiledScope {
  readonly raw: TokenScope;
  readonly backends: ReadonlySet<string> | null;
  readonly networks: ReadonlySet<string> | null;
  readonly methods: ReadonlySet<string> | null;
  /** null: no origin restriction (and no CORS); "*": any origin. */
  readonly origins: ReadonlySet<string> | "*" | null;
  readonly addresses: BlockList | null;
}

export function compileScope(raw: TokenScope | null): CompiledScope | null {
  if (!raw) return null;
  let addresses: BlockList | null = null;
  if (raw.ips) {
    addresses = new BlockList();
    for (const r of raw.ips) {
      const range = parseRange(r)!;
      addresses.addSubnet(range.address, range.prefix, range.family);
    }
  }
  return {
    raw,
    backends: raw.backends ? new Set(raw.backends) : null,
    networks: raw.networks ? new Set(raw.networks) : null,
    methods: raw.methods ? new Set(raw.methods) : null,
    origins: raw.origins ? (raw.origins.includes("*") ? "*" : new Set(raw.origins)) : null,
    addresses,
  };
}

/** The dimension a request is outside of, before its body is read; null when inside. */
export type ScopeName = "backend" | "network" | "method" | "origin" | "address";

export function requestOutOfScope(
  scope: CompiledScope | null,
  request: { backend: string; network: string; address: string; origin: string | null },
): ScopeName | null {
  if (!scope) return null;
  if (scope.backends && !scope.backends.has(request.backend)) return "backend";
  if (scope.networks && !scope.networks.has(request.network)) return "network";
  if (scope.addresses && !inRanges(scope.addresses, request.address)) return "address";
  // A token that lists no origins is not restricted by origin (nor given CORS headers).
  if (scope.origins && request.origin !== null && !originAllowed(scope, request.origin)) {
    return "origin";
  }
  return null;
}

/** The first method of a request's calls that the token may not call, or null. */
export function methodOutOfScope(
  scope: CompiledScope | null,
  methods: Iterable<string>,
): string | null {
  if (!scope?.methods) return null;
  for (const m of methods) {
    // The graph route's audit method names its root fields together: `block,block_by_pk`.
    for (const part of m.split(",")) if (!scope.methods.has(part)) return part;
  }
  return null;
}

/** Whether a browser on `origin` may call with this token (a token without origins: none). */
export function originAllowed(scope: CompiledScope | null, origin: string): boolean {
  if (!scope?.origins) return false;
  return scope.origins === "*" || scope.origins.has(origin);
}

function inRanges(list: BlockList, address: string): boolean {
  // A v4 client on a dual-stack socket shows as ::ffff:a.b.c.d: its v4 form is what ranges name.
  const v4 = address.startsWith("::ffff:") ? address.slice(7) : address;
  const family = isIP(v4);
  if (family === 0) return false;
  return list.check(v4, family === 4 ? "ipv4" : "ipv6");
}
