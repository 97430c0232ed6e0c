import type { BackendKind } from "../billing/metering/context.ts";
import type { Config } from "../config/schema.ts";
import {
  graphqlFailure,
  type HttpReply,
  jsonRpcFailure,
  plainFailure,
  textFailure,
} from "../http/reply.ts";
import { gatewayError } from "../protocol/errors/codes.ts";

/** Which backends and networks this gateway serves: what a wrong path is told exists. */
export interface Served {
  /** Segment → backend, as routing reads it (the first backend given a segment has it). */
  backends: Map<string, BackendKind>;
  /** Per backend, the networks it serves (the graph route only where an indexer is set). */
  networks: Map<BackendKind, string[]>;
}

const GRAPHQL_BACKENDS = new Set<BackendKind>(["graph", "gateway"]);

/**
 * The answer to a path no route holds. Under a backend's segment it is that route's protocol
 * (JSON-RPC or GraphQL), naming the networks it serves and the closest to what was asked;
 * elsewhere a plain error naming the backends. Nothing is read or charged.
 */
export function notFound(served: Served, parts: readonly string[]): HttpReply {
  const [first = "", second] = parts;
  const backend = served.backends.get(first);
  if (!backend) {
    const segments = [...served.backends.keys()];
    const guess = first ? closest(first, segments) : undefined;
    const message = first
      ? `no backend "${first}" here: backends served: ${segments.join(", ")}${guess ? `; did you mean "${guess}"?` : ""}`
      : `no such route: call /<backend>/<network>/<token>, with a backend of ${segments.join(", ")}`;
    return plainFailure(gatewayError("ROUTE_NOT_FOUND", message, { data: { backends: segments } }));
  }
  const networks = served.networks.get(backend) ?? [];
  const message = routeMessage(first, second, parts.length, networks, backend === "esplora");
  const error = gatewayError("ROUTE_NOT_FOUND", message, { data: { networks } });
  if (backend === "esplora") return textFailure(error);
  return GRAPHQL_BACKENDS.has(backend) ? graphqlFailure(error) : jsonRpcFailure(error);
}

function routeMessage(
  segment: string,
  network: string | undefined,
  depth: number,
  networks: readonly string[],
  /** A REST API below the token (Esplora's). */
  api: boolean,
): string {
  const list = `networks served: ${networks.join(", ") || "none"}`;
  const call = `/${segment}/<network>/<token>${api ? "/api/<endpoint>" : ""}`;
  if (network === undefined) return `no network given: call ${call}; ${list}`;
  if (!networks.includes(network)) {
    const guess = closest(network, networks);
    return `no network "${network}" on /${segment}: ${list}${guess ? `; did you mean "${guess}"?` : ""}`;
  }
  if (api) return `no such route: call /${segment}/${network}/<token>/api/<endpoint>`;
  return depth > 3
    ? `no such route: /${segment}/${network}/<token> takes nothing after the token`
    : `no such route under /${segment}/${network}`;
}

/** The candidate within two edits of `word` (the closest first), if any: a likely typo. */
function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of candidates) {
    const distance = editDistance(word.toLowerCase(), name.toLowerCase());
    if (distance <= 2 && (!best || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

/** Levenshtein distance, two rows at a time. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      row.push(Math.min(previous[j]! + 1, row[j - 1]! + 1, substitution));
    }
    previous = row;
  }
  return previous[b.length]!;
}

/** What `config` and the indexers configured make this gateway serve. */
export function servedBy(config: Config, hasIndexer: (network: string) => boolean): Served {
  const backends = new Map<string, BackendKind>();
  const networks = new Map<BackendKind, string[]>();
  for (const kind of Object.keys(config.backends) as BackendKind[]) {
    const segment = config.backends[kind];
    if (segment === "dashboard" || segment === "admin" || backends.has(segment)) continue;
    backends.set(segment, kind);
    const all = [...config.networks];
    if (kind === "graph") networks.set(kind, all.filter(hasIndexer));
    else if (kind === "esplora")
      networks.set(
        kind,
        all.filter((n) => config.upstreams.esplora?.[n]),
      );
    else networks.set(kind, all);
  }
  return { backends, networks };
}
