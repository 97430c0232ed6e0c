import type { ErrorCode } from "../../protocol/errors/codes.ts";
import type { AuditInput, Outcome } from "../ledger/audit.ts";
import type { CallContext } from "./context.ts";

/** Who made a call and where: what every audit record of a request shares. */
export type AuditSubject = Pick<
  CallContext,
  "requestId" | "owner" | "backendSegment" | "network" | "startedAt"
>;

/** What differs between the audit records of one request: the call and what became of it. */
export interface AuditFields {
  method: string;
  outcome: Outcome;
  /** Only codes of the closed list (src/protocol/errors/codes.ts); the upstream's own go beside. */
  errorCode?: ErrorCode | null;
  upstreamCode?: string | null;
  httpStatus: number;
  estimatedCc?: number;
  chargedCc?: number;
  upstream?: string | null;
  complexity?: number | null;
  /** Calls answered from the response cache. */
  cacheHits?: number;
}

/**
 * The audit record of one call of `subject`'s request, its duration measured now. One builder for
 * every route, so that records of the node, Electrum, graph and unified routes read alike.
 */
export function auditRecord(subject: AuditSubject, fields: AuditFields): AuditInput {
  return {
    requestId: subject.requestId,
    accountId: subject.owner.accountId,
    tokenId: subject.owner.tokenId,
    backend: subject.backendSegment,
    network: subject.network,
    // Made storable (escaped, cut) where every record is written: ledger settle and insertAudit.
    method: fields.method,
    outcome: fields.outcome,
    errorCode: fields.errorCode ?? null,
    upstreamCode: fields.upstreamCode ?? null,
    httpStatus: fields.httpStatus,
    estimatedCc: fields.estimatedCc ?? 0,
    chargedCc: fields.chargedCc ?? 0,
    complexity: fields.complexity ?? null,
    upstream: fields.upstream ?? null,
    durationMs: Date.now() - subject.startedAt,
    cacheHits: fields.cacheHits ?? 0,
  };
}
