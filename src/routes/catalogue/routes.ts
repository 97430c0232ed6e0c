import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Config } from "../../config/schema.ts";
import { withoutBodies } from "../../http/framework.ts";
import { sendText } from "../../http/reply.ts";
import { exampleBody, type PricedMethod, pricedCatalogue, signature } from "./render.ts";

/** The account and key hint of a signed-in dashboard session, or null. */
export type SessionLookup = (
  request: FastifyRequest,
) => Promise<{ account: string; hint: string } | null>;

const HEADERS = {
  "content-security-policy":
    "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
  "cache-control": "no-cache",
};

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
  );

/**
 * GET /methods: every method the JSON-RPC mirrors serve, with its parameters, its price on each
 * network this gateway offers (from the running config) and an example call; GET /methods.json
 * is the same for programs. Public, like the interface it documents: no token, no charge.
 * GET /dashboard/methods is the same page for a signed-in session (whose cookie only /dashboard
 * paths receive), naming the account and the hint of the key its examples need.
 */
export function catalogueRoutes(
  http: FastifyInstance,
  config: Config,
  signedIn: SessionLookup,
): void {
  const networks = config.networks;
  const methods = pricedCatalogue(config, networks);
  // The page's examples name the address the reader used: one page per Host seen, kept small.
  const pages = new Map<string, string>();
  const json = JSON.stringify({ networks, methods }, null, 2);
  withoutBodies(http, (scope) => {
    scope.get("/methods", async (request, reply) => {
      const base = baseUrl(request.headers.host, request.protocol);
      let text = pages.get(base);
      if (text === undefined) {
        text = page(config, methods, base);
        if (pages.size < 16) pages.set(base, text);
      }
      return sendText(reply, 200, "text/html; charset=utf-8", text, HEADERS);
    });
    scope.get("/dashboard/methods", async (request, reply) => {
      const who = await signedIn(request);
      if (!who) return sendText(reply, 303, "text/plain", "", { ...HEADERS, location: "/methods" });
      const base = baseUrl(request.headers.host, request.protocol);
      return sendText(reply, 200, "text/html; charset=utf-8", page(config, methods, base, who), {
        ...HEADERS,
        "cache-control": "no-store",
      });
    });
    scope.get("/methods.json", async (_request, reply) =>
      sendText(reply, 200, "application/json", json, HEADERS),
    );
  });
}

/** An Esplora endpoint's example as a curl command (a broadcast posts the Hal transaction's hex). */
function restCurl(rest: NonNullable<PricedMethod["rest"]>, api: string): string {
  if (rest.verb === "GET") return `curl -s ${api}${rest.example}`;
  return `curl -s -X POST --data "$RAW_TX_HEX" ${api}${rest.example}`;
}

/** `http://host:port` as the client wrote it; a Host header that is no host gives a placeholder. */
function baseUrl(host: string | undefined, protocol: string): string {
  const valid =
    host !== undefined && /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/.test(host);
  return `${protocol}://${valid ? host : "HOST"}`;
}

/** Where the examples' token comes from: the reader's own key when signed in. */
function tokenNote(who: { account: string; hint: string } | null): string {
  if (!who) {
    return "<p>In the examples, set <code>TOKEN</code> to your access token first: <code>TOKEN=bgt_…</code></p>";
  }
  return `<p class="you" data-testid="signed-in">Signed in as <b>${escapeHtml(who.account)}</b> with the key <code>${escapeHtml(who.hint)}</code>. In the examples, set <code>TOKEN</code> to that key first (its whole value was shown once, when it was made): <code>TOKEN=bgt_…</code>. <a href="/dashboard">Back to the dashboard</a>.</p>`;
}

function page(
  config: Config,
  methods: PricedMethod[],
  base: string,
  who: { account: string; hint: string } | null = null,
): string {
  const { networks, backends } = config;
  const section = (backend: "node" | "electrum" | "esplora", title: string) => {
    const rows = methods
      .filter((m) => m.backend === backend)
      .map((m) => {
        const prices = Object.entries(m.prices)
          .map(([key, byNetwork]) => {
            const variant = m.variants?.find((v) => `${m.method}/${v.variant}` === key);
            const cells = networks.map((n) => `<td>${byNetwork[n]}</td>`).join("");
            return `<tr class="price"><th>${escapeHtml(variant ? variant.when : "per call")}</th>${cells}</tr>`;
          })
          .join("");
        const params = m.params
          .map(
            (p) =>
              `<li><code>${escapeHtml(p.name)}</code> ${escapeHtml(p.type)}${p.optional ? " (optional)" : ""}</li>`,
          )
          .join("");
        const curl = m.rest
          ? restCurl(m.rest, `${base}/${backends[backend]}/${networks[0]}/$TOKEN/api`)
          : `curl -s -X POST -H 'content-type: application/json' \\\n  --data '${exampleBody(m)}' \\\n  ${base}/${backends[backend]}/${networks[0]}/$TOKEN`;
        const title = m.rest ? `${m.rest.verb} ${m.rest.path}` : signature(m);
        return `<section id="${escapeHtml(m.method)}"><h3><code>${escapeHtml(title)}</code></h3>
<p>${escapeHtml(m.summary)}</p>${params ? `<ul>${params}</ul>` : "<p>No parameters.</p>"}
<div class="wrap"><table><tr><th>CC</th>${networks.map((n) => `<th>${n}</th>`).join("")}</tr>${prices}</table></div>
<pre>${escapeHtml(curl)}</pre></section>`;
      })
      .join("\n");
    const route =
      backend === "esplora"
        ? `GET|POST /${backends[backend]}/&lt;network&gt;/&lt;token&gt;/api/…`
        : `POST /${backends[backend]}/&lt;network&gt;/&lt;token&gt;`;
    return `<h2 id="${backend}">${title} — <code>${route}</code></h2>\n${rows}`;
  };
  const contents = (backend: "node" | "electrum" | "esplora", title: string) =>
    `<li><a href="#${backend}">${title}</a>: ${methods
      .filter((m) => m.backend === backend)
      .map((m) => `<a href="#${escapeHtml(m.method)}">${escapeHtml(m.method)}</a>`)
      .join(", ")}</li>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>blockgate — methods and prices</title>
<style>body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1d2330}
section{border-top:1px solid #d5d9e0;padding:.5rem 0}table{border-collapse:collapse}td,th{padding:.2rem .6rem;text-align:left}
pre{background:#f5f6f8;padding:.5rem;white-space:pre-wrap;overflow-wrap:anywhere}
h2,h3 code{overflow-wrap:anywhere}.wrap{overflow-x:auto}nav li{margin:.3rem 0}</style></head>
<body><h1>Methods and prices</h1>
<p>Every JSON-RPC method and Esplora endpoint this gateway serves, its parameters, its price in credits (CC) per call on each network, and an example call. A batch is priced call by call. Any other method is refused with the upstream's own “method not found”, and is not charged. <a href="/methods.json">As JSON</a>.</p>
${tokenNote(who)}
<nav><h2>Contents</h2><ul>${contents("node", "Bitcoin Core")}${contents("electrum", "Electrum")}${contents("esplora", "Esplora")}</ul></nav>
${section("node", "Bitcoin Core")}
${section("electrum", "Electrum protocol 1.4")}
${section("esplora", "Esplora REST API")}
</body></html>`;
}
