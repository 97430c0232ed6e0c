import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { findAccount } from "../accounts/accounts.ts";
import { authenticate } from "../auth/tokens.ts";
import { unifiedApi } from "../graphql/load.ts";
import { readBody } from "../http/body.ts";
import { sendJson } from "../http/reply.ts";
import type { App } from "../metering/context.ts";
import { auditCsv, usageCsv } from "../usage/csv.ts";
import { cycleAt, cycleContaining } from "../usage/cycles.ts";
import { DASHBOARD_CSS, dashboardScript } from "./assets.ts";
import { createSession, endSession, readCookie, SESSION_COOKIE, sessionOwner } from "./sessions.ts";

const SECURITY_HEADERS = {
  // Everything is served by the gateway itself: no CDN, no inline script, no framing.
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
  "cache-control": "no-store",
};

function send(
  res: ServerResponse,
  status: number,
  type: string,
  body: string,
  headers: Record<string, string> = {},
) {
  res.writeHead(status, {
    "content-type": type,
    "content-length": Buffer.byteLength(body),
    ...SECURITY_HEADERS,
    ...headers,
  });
  res.end(body);
}

const page = (title: string, body: string, script = false) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title><link rel="stylesheet" href="/dashboard/style.css"></head>
<body>${body}${script ? '<script type="module" src="/dashboard/app.js"></script>' : ""}</body></html>`;

const signIn = (error?: string) =>
  page(
    "blockgate — sign in",
    `<form class="signin" method="post" action="/dashboard/session" autocomplete="off">
<h1>blockgate usage</h1><p>Sign in with an access token. It is exchanged for a session cookie and never appears in a URL.</p>
${error ? `<p class="error" data-testid="signin-error">${error}</p>` : ""}
<label for="token">Access token</label><input id="token" name="token" type="password" required spellcheck="false">
<button type="submit">Sign in</button></form>`,
  );

/**
 * /dashboard: the usage page. A token is posted once (form body, never a URL) and exchanged for
 * an HttpOnly, SameSite=Strict session cookie; the page then reads the unified GraphQL API at
 * /dashboard/graphql with that cookie. JSON-only GraphQL plus SameSite keeps other sites out.
 */
export async function handleDashboard(
  app: App,
  req: IncomingMessage,
  res: ServerResponse,
  rest: string[],
): Promise<void> {
  const path = rest.join("/");
  const method = req.method ?? "GET";
  const cookie = readCookie(req.headers.cookie, SESSION_COOKIE);
  if (path === "style.css" && method === "GET")
    return send(res, 200, "text/css; charset=utf-8", DASHBOARD_CSS);
  if (path === "app.js" && method === "GET")
    return send(res, 200, "text/javascript; charset=utf-8", await dashboardScript());
  if (path === "session" && method === "POST") {
    const form = new URLSearchParams(await readBody(req, 4096));
    const owner = await authenticate(app.db, (form.get("token") ?? "").trim());
    if (!owner)
      return send(
        res,
        401,
        "text/html; charset=utf-8",
        signIn("That token is unknown or revoked."),
      );
    const value = await createSession(app.db, owner, app.config.dashboard.sessionTtlMs);
    const maxAge = Math.floor(app.config.dashboard.sessionTtlMs / 1000);
    return send(res, 303, "text/plain", "", {
      location: "/dashboard",
      "set-cookie": `${SESSION_COOKIE}=${value}; HttpOnly; SameSite=Strict; Path=/dashboard; Max-Age=${maxAge}`,
    });
  }
  if (path === "logout" && method === "POST") {
    await endSession(app.db, cookie);
    return send(res, 303, "text/plain", "", {
      location: "/dashboard",
      "set-cookie": `${SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=/dashboard; Max-Age=0`,
    });
  }
  const owner = await sessionOwner(app.db, cookie);
  if (path === "" && method === "GET") {
    return owner
      ? send(
          res,
          200,
          "text/html; charset=utf-8",
          page("blockgate — usage", '<main id="app">Loading…</main>', true),
        )
      : send(res, 200, "text/html; charset=utf-8", signIn());
  }
  if (!owner) {
    return sendJson(res, {
      status: 401,
      body: { errors: [{ message: "sign in first", extensions: { code: "UNAUTHENTICATED" } }] },
    });
  }
  if (path === "graphql" && method === "POST") {
    if (!(req.headers["content-type"] ?? "").startsWith("application/json")) {
      return sendJson(res, {
        status: 415,
        body: {
          errors: [{ message: "send application/json", extensions: { code: "BAD_USER_INPUT" } }],
        },
      });
    }
    const body = await readBody(req, app.config.server.bodyBytesMax);
    return sendJson(
      res,
      await (await unifiedApi()).executeGraphQL(
        {
          app,
          owner,
          // The dashboard is a client of the unified API; its records say where it was asked.
          backend: "gateway",
          backendSegment: "dashboard",
          network: app.config.networks[0]!,
          requestId: randomUUID(),
          startedAt: Date.now(),
        },
        { req, body, publicPath: "/dashboard/graphql" },
      ),
    );
  }
  if (path === "export.csv" && method === "GET") {
    const account = await findAccount(app.db, owner.accountId);
    if (!account) return send(res, 404, "text/plain", "no account");
    const url = new URL(req.url ?? "/", "http://gateway");
    const rule = app.config.billing.cycle;
    const current = cycleContaining(account.createdAt, new Date(), rule);
    const index = url.searchParams.has("cycle")
      ? Number(url.searchParams.get("cycle"))
      : current.index;
    if (!Number.isInteger(index) || index < 0 || index > current.index)
      return send(res, 400, "text/plain", "no such cycle");
    const cycle = cycleAt(account.createdAt, index, rule);
    const kind = url.searchParams.get("kind") === "usage" ? "usage" : "audit";
    const csv =
      kind === "usage"
        ? await usageCsv(app.db, account.id, cycle)
        : await auditCsv(app.db, account.id, cycle);
    const name = `blockgate-${account.name}-${kind}-${cycle.start.toISOString().slice(0, 10)}.csv`;
    return send(res, 200, "text/csv; charset=utf-8", csv, {
      "content-disposition": `attachment; filename="${name}"`,
    });
  }
  return send(res, 404, "text/plain", "not found");
}
