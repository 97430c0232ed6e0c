import type { FastifyInstance } from "fastify";
import { withoutBodies } from "../../http/framework.ts";
import { sendText } from "../../http/reply.ts";

/** What the front door says is served: each backend's path segment, protocol and networks. */
export interface FrontDoor {
  backends: { segment: string; kind: string; networks: string[] }[];
}

const HEADERS = {
  "content-security-policy":
    "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
  "cache-control": "no-cache",
};

const PROTOCOLS: Record<string, string> = {
  node: "Bitcoin Core's JSON-RPC",
  electrum: "the Electrum protocol (JSON-RPC over HTTP, WebSocket and TLS)",
  graph: "a Hasura-style GraphQL block indexer",
  gateway: "the unified GraphQL API (GraphiQL in a browser, subscriptions)",
};

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** GET /: a small page saying what this gateway serves and where to go. Public, no token. */
export function homeRoutes(http: FastifyInstance, door: FrontDoor): void {
  const html = page(door);
  withoutBodies(http, (scope) => {
    scope.get("/", async (_request, reply) =>
      sendText(reply, 200, "text/html; charset=utf-8", html, HEADERS),
    );
  });
}

function page(door: FrontDoor): string {
  const rows = door.backends
    .map(
      (b) =>
        `<tr><td><code>/${escapeHtml(b.segment)}/&lt;network&gt;/&lt;token&gt;</code></td><td>${escapeHtml(PROTOCOLS[b.kind] ?? b.kind)}</td><td>${b.networks.map(escapeHtml).join(", ") || "none"}</td></tr>`,
    )
    .join("\n");
  const gateway = door.backends.find((b) => b.kind === "gateway");
  const graphiql = gateway
    ? `<li><strong>GraphiQL</strong>: open <code>/${escapeHtml(gateway.segment)}/${escapeHtml(gateway.networks[0] ?? "mainnet")}/&lt;your token&gt;</code> in a browser.</li>`
    : "";
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>blockgate</title>
<style>body{font-family:system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem;color:#1d2330;line-height:1.5}
table{border-collapse:collapse;width:100%}td,th{padding:.35rem .5rem;text-align:left;border-bottom:1px solid #e3e6eb;vertical-align:top}
code{background:#f3f4f7;padding:0 .2rem;border-radius:3px;overflow-wrap:anywhere}.wrap{overflow-x:auto}a{color:#1f5fbf}</style></head>
<body><h1>blockgate</h1>
<p>A metered gateway to Bitcoin data. Every call carries an access token — at the end of the path,
or as <code>Authorization: Bearer &lt;token&gt;</code> or <code>X-Api-Key: &lt;token&gt;</code> —
and is charged in credits to its account.</p>
<h2>What this gateway serves</h2>
<div class="wrap"><table><tr><th>Path</th><th>Speaks</th><th>Networks</th></tr>
${rows}</table></div>
<h2>Where to go</h2>
<ul>
<li><a href="/dashboard"><strong>Dashboard</strong></a>: your balance, usage, keys and webhooks (sign in with a token).</li>
${graphiql}
<li><a href="/methods"><strong>Methods and prices</strong></a>: every JSON-RPC method served, its price per network and an example (<a href="/methods.json">as JSON</a>).</li>
<li><a href="/healthz">/healthz</a> and <a href="/readyz">/readyz</a>: whether the process answers, and whether it is ready to serve.</li>
<li>Documentation: <code>docs/</code> in blockgate's repository (user guides per route, operator and contributor guides).</li>
</ul>
</body></html>`;
}
