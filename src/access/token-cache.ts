import { EventEmitter } from "node:events";
import type { Database } from "../db/database.ts";
import { authenticate, isTokenShaped, type TokenOwner, tokenCacheKey } from "./tokens.ts";

/**
 * Token hash → owner, in process memory, bounded (LRU), so a request does not pay a database round
 * trip to be authenticated. Revocation: `revokeToken` signals every process (PostgreSQL NOTIFY;
 * in-process at once for the process that revoked), and each drops the token; while signals
 * cannot be received (the listening connection is down) the cache is not used at all, and entries
 * also expire after `ttlMs` whatever happens. Unknown tokens are never cached (a token issued a
 * moment later must work), so a flood of bad tokens cannot fill it. Keys are hashes, never tokens.
 */
export class TokenCache {
  private readonly entries = new Map<string, { owner: TokenOwner; until: number }>();
  /** Sessions of a token waiting to hear of its revocation, by token id. */
  private readonly watchers = new EventEmitter();
  /** Revocations seen; a lookup that raced one is not cached. */
  private revocations = 0;

  private readonly maxEntries: number;
  private readonly ttlMs: number;
  /** Told of each revocation signal as it arrives (logged: operators and tests see when). */
  private readonly onRevoked: (tokenId: number, dropped: number) => void;

  constructor(
    private readonly db: Database,
    opts: {
      maxEntries?: number;
      ttlMs?: number;
      onRevoked?: (tokenId: number, dropped: number) => void;
    } = {},
  ) {
    this.maxEntries = opts.maxEntries ?? 10_000;
    this.ttlMs = opts.ttlMs ?? 60_000;
    this.onRevoked = opts.onRevoked ?? (() => {});
    this.watchers.setMaxListeners(0);
    db.listen("token_revoked", (payload) => this.revoked(Number(payload)));
  }

  async authenticate(token: string): Promise<TokenOwner | null> {
    if (!isTokenShaped(token) || this.maxEntries === 0) return authenticate(this.db, token);
    const key = tokenCacheKey(token);
    const now = Date.now();
    const hit = this.live(key, now);
    // Most recently used last (Map order is the LRU order); a stale entry simply goes.
    this.entries.delete(key);
    if (hit) {
      this.entries.set(key, hit);
      return hit.owner;
    }
    const seen = this.revocations;
    const owner = await authenticate(this.db, token);
    if (owner && seen === this.revocations && this.db.listening()) {
      // An expiring token (rotation's deadline) leaves the cache when it stops working.
      const expires = owner.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY;
      this.entries.set(key, { owner, until: Math.min(now + this.ttlMs, expires) });
      if (this.entries.size > this.maxEntries) {
        this.entries.delete(this.entries.keys().next().value as string);
      }
    }
    return owner;
  }

  /** The owner of a token this process holds in its cache, without asking the database. */
  cached(token: string): TokenOwner | null {
    if (!isTokenShaped(token)) return null;
    return this.live(tokenCacheKey(token), Date.now())?.owner ?? null;
  }

  /** An entry that may be used: within its time, and while revocations can be heard. */
  private live(key: string, now: number) {
    const hit = this.entries.get(key);
    return hit && hit.until > now && this.db.listening() ? hit : undefined;
  }

  get size(): number {
    return this.entries.size;
  }

  private revoked(tokenId: number): void {
    this.revocations += 1;
    let dropped = 0;
    for (const [key, entry] of this.entries) {
      if (entry.owner.tokenId === tokenId || !Number.isFinite(tokenId)) {
        this.entries.delete(key);
        dropped += 1;
      }
    }
    this.onRevoked(tokenId, dropped);
    this.watchers.emit(String(tokenId));
  }

  /**
   * Calls `fn` once the token `tokenId` is revoked (the signal reaches every process): what ends a
   * long-lived session of it (a subscription) at once. Returns the way to stop watching.
   */
  watchRevocation(tokenId: number, fn: () => void): () => void {
    this.watchers.once(String(tokenId), fn);
    return () => this.watchers.off(String(tokenId), fn);
  }
}
