import { randomUUID } from "node:crypto";
import { insertAudit, type Outcome } from "../billing/ledger/audit.ts";
import type { Database } from "../db/database.ts";

/**
 * What a request was refused for before its body was read: a bad token (401), an address locked
 * out after failed authentications (429), the token's scope (403, the code naming which), or its
 * plan's request rate or calls in flight (429). None was executed or charged.
 */
export type EarlyRefusal = "unauthenticated" | "auth_locked" | "rate_limited" | "forbidden";

const REFUSALS: Record<
  EarlyRefusal,
  { method: string; outcome: Outcome; errorCode: string; httpStatus: number }
> = {
  unauthenticated: {
    method: "(unauthenticated)",
    outcome: "unauthenticated",
    errorCode: "UNAUTHENTICATED",
    httpStatus: 401,
  },
  // An address locked out after too many failures: refused 429 before its token is looked up.
  auth_locked: {
    method: "(unauthenticated)",
    outcome: "unauthenticated",
    errorCode: "RATE_LIMITED",
    httpStatus: 429,
  },
  rate_limited: {
    method: "(rate limited)",
    outcome: "rate_limited",
    errorCode: "RATE_LIMITED",
    httpStatus: 429,
  },
  // Outside the token's scope; the record's code names which (SCOPE_ORIGIN, …).
  forbidden: {
    method: "(out of scope)",
    outcome: "forbidden",
    errorCode: "SCOPE_BACKEND",
    httpStatus: 403,
  },
};

/** Where a refused request came from and what it asked for. */
export interface AuthFailure {
  /** Absent: unauthenticated. */
  refusal?: EarlyRefusal;
  /** The code the refusal was answered with, where its kind has several (forbidden). */
  errorCode?: string;
  /** The client's address. */
  source: string;
  backendSegment: string;
  network: string;
  /** The token's id and account (an unknown token has neither; a revoked one has both). */
  tokenId: number | null;
  accountId: number | null;
}

interface Bucket extends AuthFailure {
  minute: number;
  calls: number;
}

/**
 * Failed authentications and rate-limited requests, aggregated: one audit record per refusal,
 * source, route, token (if known) and minute, carrying how many calls it stands for (`calls`),
 * written when its minute is over (and at shutdown). So a flood of bad tokens, or a runaway loop
 * on a good one, costs a handful of rows, never a row per request; the dashboard and CLI sum
 * `calls`. Buckets kept in memory are bounded: past `bucketsMax`, the oldest
 * are written early.
 */
export class AuthFailures {
  private readonly buckets = new Map<string, Bucket>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly db: Database,
    private readonly onError: (err: unknown) => void,
    private readonly bucketsMax = 10_000,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.flush(false), 5_000);
    this.timer.unref();
  }

  record(f: AuthFailure): void {
    const minute = Math.floor(Date.now() / 60_000);
    const key = [
      minute,
      f.refusal ?? "unauthenticated",
      f.errorCode ?? "",
      f.source,
      f.backendSegment,
      f.network,
      f.tokenId ?? "",
    ].join("\u0000");
    const bucket = this.buckets.get(key);
    if (bucket) {
      bucket.calls += 1;
      return;
    }
    this.buckets.set(key, { ...f, minute, calls: 1 });
    if (this.buckets.size > this.bucketsMax) void this.flush(false, this.buckets.size / 2);
  }

  /** Writes the buckets of minutes that are over (all of them with `all`, or the `oldest` n). */
  async flush(all: boolean, oldest = 0): Promise<void> {
    const now = Math.floor(Date.now() / 60_000);
    let early = oldest;
    const due: Bucket[] = [];
    for (const [key, b] of this.buckets) {
      if (all || b.minute < now || early-- > 0) {
        due.push(b);
        this.buckets.delete(key);
      }
    }
    for (const b of due) {
      const refusal = b.refusal ?? "unauthenticated";
      await insertAudit(this.db, {
        requestId: randomUUID(),
        accountId: b.accountId,
        tokenId: b.tokenId,
        backend: b.backendSegment,
        network: b.network,
        method: REFUSALS[refusal].method,
        outcome: REFUSALS[refusal].outcome,
        errorCode: b.errorCode ?? REFUSALS[refusal].errorCode,
        source: b.source,
        httpStatus: REFUSALS[refusal].httpStatus,
        estimatedCc: 0,
        chargedCc: 0,
        calls: b.calls,
      }).catch(this.onError);
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush(true);
  }
}
