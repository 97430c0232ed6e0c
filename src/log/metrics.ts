import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { BreakerState, PoolObserver } from "./pool-observer.ts";

/** The breaker gauge's values: 0 is the normal state, so a sum over upstreams shows trouble. */
const BREAKER_VALUE: Record<BreakerState, number> = { closed: 0, "half-open": 1, open: 2 };

/**
 * Prometheus metrics of one gateway (its own registry, so several gateways in one process — the
 * tests — never mix). Labels are closed sets: route kinds, networks, statuses, upstream names from
 * config. No label ever holds a token or anything a caller typed.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly requests = new Counter({
    name: "blockgate_http_requests_total",
    help: "HTTP requests answered, by route kind and status.",
    labelNames: ["route", "network", "status"] as const,
    registers: [this.registry],
  });
  readonly latency = new Histogram({
    name: "blockgate_http_request_duration_seconds",
    help: "Time to answer, by route kind.",
    labelNames: ["route"] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  readonly credits = new Counter({
    name: "blockgate_credits_charged_total",
    help: "Credits (CC) charged, by route kind and network.",
    labelNames: ["route", "network"] as const,
    registers: [this.registry],
  });
  readonly connectionsRefused = new Counter({
    name: "blockgate_connections_refused_total",
    help: "Connections answered 429 and closed: their address had server.connectionsPerAddressMax open.",
    registers: [this.registry],
  });
  readonly authFailures = new Counter({
    name: "blockgate_auth_failures_total",
    help: "Requests refused for a missing, unknown or revoked token, by route kind.",
    labelNames: ["route"] as const,
    registers: [this.registry],
  });
  readonly chainEvents = new Counter({
    name: "blockgate_chain_events_total",
    help: "Chain events this process heard (blocks connected, and disconnected by reorganisations), by network and kind.",
    labelNames: ["network", "kind"] as const,
    registers: [this.registry],
  });
  readonly webhookAttempts = new Counter({
    name: "blockgate_webhook_attempts_total",
    help: "Webhook delivery attempts this process made, by result (delivered, retry, failed, refused).",
    labelNames: ["result"] as const,
    registers: [this.registry],
  });
  readonly webhookLatency = new Histogram({
    name: "blockgate_webhook_attempt_seconds",
    help: "How long webhook endpoints took to answer an attempt (sent attempts only).",
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly rateLimited = new Counter({
    name: "blockgate_rate_limited_total",
    help: "Requests refused 429 RATE_LIMITED by their plan's request rate or calls in flight, by route kind.",
    labelNames: ["route"] as const,
    registers: [this.registry],
  });
  readonly outOfScope = new Counter({
    name: "blockgate_out_of_scope_total",
    help: "Requests refused 403 for using a token outside its scope, by route kind and scope.",
    labelNames: ["route", "scope"] as const,
    registers: [this.registry],
  });
  readonly creditCapped = new Counter({
    name: "blockgate_credit_capped_total",
    help: "Requests refused 429 CREDIT_CAP_REACHED by their plan's credit cap per day or cycle, by route kind.",
    labelNames: ["route"] as const,
    registers: [this.registry],
  });
  readonly capsFromLedger = new Counter({
    name: "blockgate_credit_caps_from_ledger_total",
    help: "Credit cap checks the ledger answered because Redis could not (REDIS_URL set): slower, still shared by every process.",
    registers: [this.registry],
  });
  readonly ledgerFailures = new Counter({
    name: "blockgate_ledger_failures_total",
    help: "Ledger operations that failed (the request got a 500 and was not answered with data).",
    registers: [this.registry],
  });
  readonly upstreamLatency = new Histogram({
    name: "blockgate_upstream_request_duration_seconds",
    help: "Upstream attempts, by backend, network, upstream and outcome (ok, too_large: answered more than the call may have, failed, timeout, outpaced: abandoned for a later attempt that answered first, cancelled: abandoned otherwise).",
    labelNames: ["backend", "network", "upstream", "outcome"] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly upstreamUp = new Gauge({
    name: "blockgate_upstream_up",
    help: "1 when the upstream's last round trip succeeded, 0 when it failed.",
    labelNames: ["backend", "network", "upstream"] as const,
    registers: [this.registry],
  });
  readonly upstreamBreaker = new Gauge({
    name: "blockgate_upstream_breaker_state",
    help: "The upstream's circuit breaker: 0 closed, 1 half-open (one trial call may pass), 2 open (passed over).",
    labelNames: ["backend", "network", "upstream"] as const,
    registers: [this.registry],
  });
  readonly upstreamBreakerOpens = new Counter({
    name: "blockgate_upstream_breaker_opens_total",
    help: "Times the upstream's circuit breaker opened.",
    labelNames: ["backend", "network", "upstream"] as const,
    registers: [this.registry],
  });
  readonly upstreamInconsistent = new Gauge({
    name: "blockgate_upstream_inconsistent",
    help: "1 while the upstream is held out of its pool because its chain disagrees with the verified header chain (an invalid header, or less work), else 0.",
    labelNames: ["backend", "network", "upstream"] as const,
    registers: [this.registry],
  });
  readonly verifiedHeight = new Gauge({
    name: "blockgate_verified_chain_height",
    help: "The height of the network's verified header chain's tip.",
    labelNames: ["network"] as const,
    registers: [this.registry],
  });
  readonly upstreamRetries = new Counter({
    name: "blockgate_upstream_retries_total",
    help: "Attempts sent to this upstream after another upstream failed or timed out on the same call.",
    labelNames: ["backend", "network", "upstream"] as const,
    registers: [this.registry],
  });
  readonly upstreamHedges = new Counter({
    name: "blockgate_upstream_hedges_total",
    help: "Attempts sent to this upstream because another was slow to answer the same read (hedging).",
    labelNames: ["backend", "network", "upstream"] as const,
    registers: [this.registry],
  });

  readonly coalescedRequests = new Histogram({
    name: "blockgate_node_coalesced_requests",
    help: "Requests whose calls went to the full node as one combined JSON-RPC batch, per batch.",
    labelNames: ["network"] as const,
    buckets: [2, 4, 8, 16, 32, 64, 128],
    registers: [this.registry],
  });
  readonly coalescedCalls = new Histogram({
    name: "blockgate_node_coalesced_calls",
    help: "Calls in each JSON-RPC batch that combined several requests to the full node.",
    labelNames: ["network"] as const,
    buckets: [2, 4, 8, 16, 32, 64, 128, 256, 512, 1000],
    registers: [this.registry],
  });

  readonly sharedTrips = new Counter({
    name: "blockgate_upstream_shared_total",
    help: "Upstream calls not sent because an identical one was in flight (its answer shared).",
    labelNames: ["backend", "network"] as const,
    registers: [this.registry],
  });
  readonly upstreamUnverified = new Counter({
    name: "blockgate_upstream_unverified_total",
    help: "Answers an upstream gave that failed verification (a transaction's bytes not its txid, a header not the block asked): never served, the call went to another upstream.",
    labelNames: ["backend", "network", "upstream"] as const,
    registers: [this.registry],
  });
  readonly cacheLookups = new Counter({
    name: "blockgate_cache_lookups_total",
    help: "Response cache look-ups, by network, tier (memory, redis) and result (hit, miss, error).",
    labelNames: ["network", "tier", "result"] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: "blockgate_" });
  }

  /** What one pool of upstreams reports: attempts, retries, hedges, breaker states. */
  pool(backend: string, network: string): PoolObserver {
    return {
      attempt: (upstream, outcome, seconds) => {
        this.upstreamLatency.observe({ backend, network, upstream, outcome }, seconds);
        if (outcome === "unverified") this.upstreamUnverified.inc({ backend, network, upstream });
        // An abandoned attempt did not finish: it says nothing of the last round trip.
        if (outcome !== "cancelled" && outcome !== "outpaced") {
          // An answer too large for its caller is still an answer: the upstream is up.
          const up = outcome === "ok" || outcome === "too_large";
          this.upstreamUp.set({ backend, network, upstream }, up ? 1 : 0);
        }
      },
      retried: (upstream) => this.upstreamRetries.inc({ backend, network, upstream }),
      hedged: (upstream) => this.upstreamHedges.inc({ backend, network, upstream }),
      breaker: (upstream, state) => {
        this.upstreamBreaker.set({ backend, network, upstream }, BREAKER_VALUE[state]);
        if (state === "open") this.upstreamBreakerOpens.inc({ backend, network, upstream });
      },
    };
  }

  /** A caller that joined an identical upstream request in flight. */
  shared(backend: string, network: string): void {
    this.sharedTrips.inc({ backend, network });
  }

  /** One JSON-RPC batch to a full node that combined `requests` requests' `calls` calls. */
  coalesced(network: string, requests: number, calls: number): void {
    this.coalescedRequests.observe({ network }, requests);
    this.coalescedCalls.observe({ network }, calls);
  }
}
