import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import {
  createSession,
  endSession,
  readCookie,
  SESSION_COOKIE,
  sessionOwner,
} from "../../access/sessions.ts";
import { authenticate, type TokenOwner } from "../../access/tokens.ts";
import { findAccount } from "../../billing/ledger/accounts.ts";
import { topupsCsv } from "../../billing/topups/csv.ts";
import { auditCsv, usageCsv } from "../../billing/usage/csv.ts";
import { cycleAt, cycleContaining } from "../../billing/usage/cycles.ts";
import { bodyText, type OtherMethod, pathParts, withoutBodies } from "../../http/framework.ts";
import { sendReply, sendText } from "../../http/reply.ts";
import type { GatewayServices } from "../gateway/services.ts";
import { dashboardScript } from "./assets.ts";
import { DASHBOARD_CSS } from "./style.ts";

const SECURITY_HEADERS = {
  // Everything is served by the gateway itself: no CDN, no inline script, no framing.
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
  "cache-control": "no-store",
};

/** Largest sign-in form read: one token. */
const SIGN_IN_BODY_BYTES_MAX = 4096;

function send(
  reply: FastifyReply,
  status: number,
  type: string,
  body: string,
  headers: Record<string, string> = {},
) {
  return sendText(reply, status, type, body, { ...SECURITY_HEADERS, ...headers });
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
 * Any other path or method below /dashboard is answered from the not-found handler, by the
 * `OtherMethod` returned: signed in, 404; otherwise, sign in first.
 */
export function dashboardRoutes(http: FastifyInstance, app: GatewayServices): OtherMethod {
  http.decorateRequest("dashboardOwner", null);
  const ownerOf = (request: FastifyRequest) => sessionOwner(app.db, cookieOf(request));
  http.post("/dashboard/session", { bodyLimit: SIGN_IN_BODY_BYTES_MAX }, (request, reply) =>
    signInWith(app, request, reply),
  );
  // The session and the content type are checked before the body is read.
  http.post(
    "/dashboard/graphql",
    { onRequest: (request, reply) => admitGraphQL(ownerOf, request, reply) },
    async (request, reply) => sendReply(reply, await dashboardGraphQL(app, request)),
  );
  withoutBodies(http, (scope) => pages(scope, app, ownerOf));
  return (request, reply) => {
    if (pathParts(request)[0] !== "dashboard") return undefined;
    return ownerOf(request).then((owner) =>
      owner ? send(reply, 404, "text/plain", "not found") : signInFirst(reply),
    );
  };
}

const cookieOf = (request: FastifyRequest) => readCookie(request.headers.cookie, SESSION_COOKIE);

/** A token posted once (form body), exchanged for the session cookie. */
async function signInWith(app: GatewayServices, request: FastifyRequest, reply: FastifyReply) {
  const form = new URLSearchParams(bodyText(request));
  const owner = await authenticate(app.db, (form.get("token") ?? "").trim());
  if (!owner) {
    const html = signIn("That token is unknown or revoked.");
    return send(reply, 401, "text/html; charset=utf-8", html);
  }
  const value = await createSession(app.db, owner, app.config.dashboard.sessionTtlMs);
  const maxAge = Math.floor(app.config.dashboard.sessionTtlMs / 1000);
  return send(reply, 303, "text/plain", "", {
    location: "/dashboard",
    "set-cookie": `${SESSION_COOKIE}=${value}; HttpOnly; SameSite=Strict; Path=/dashboard; Max-Age=${maxAge}`,
  });
}

type OwnerOf = (request: FastifyRequest) => Promise<TokenOwner | null>;

async function admitGraphQL(ownerOf: OwnerOf, request: FastifyRequest, reply: FastifyReply) {
  const owner = await ownerOf(request);
  if (!owner) return signInFirst(reply);
  if (!(request.raw.headers["content-type"] ?? "").startsWith("application/json")) {
    return sendReply(reply, {
      status: 415,
      body: {
        errors: [{ message: "send application/json", extensions: { code: "BAD_USER_INPUT" } }],
      },
    });
  }
  request.setDecorator<TokenOwner>("dashboardOwner", owner);
}

/** The dashboard is a client of the unified API; its records say where it was asked. */
async function dashboardGraphQL(app: GatewayServices, request: FastifyRequest) {
  const ctx = {
    services: app,
    owner: request.getDecorator<TokenOwner>("dashboardOwner"),
    backend: "gateway" as const,
    backendSegment: "dashboard",
    network: app.config.networks[0]!,
    requestId: request.id,
    startedAt: Date.now(),
  };
  const call = { req: request.raw, body: bodyText(request), publicPath: "/dashboard/graphql" };
  return (await app.unifiedApi()).execute(ctx, call);
}

/** The pages and files, which read no body. */
function pages(scope: FastifyInstance, app: GatewayServices, ownerOf: OwnerOf): void {
  scope.get("/dashboard/style.css", async (_request, reply) =>
    send(reply, 200, "text/css; charset=utf-8", DASHBOARD_CSS),
  );
  scope.get("/dashboard/app.js", async (_request, reply) =>
    send(reply, 200, "text/javascript; charset=utf-8", await dashboardScript()),
  );
  scope.post("/dashboard/logout", async (request, reply) => {
    await endSession(app.db, cookieOf(request));
    return send(reply, 303, "text/plain", "", {
      location: "/dashboard",
      "set-cookie": `${SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=/dashboard; Max-Age=0`,
    });
  });
  scope.get("/dashboard", async (request, reply) => {
    if (!(await ownerOf(request))) return send(reply, 200, "text/html; charset=utf-8", signIn());
    const html = page("blockgate — usage", '<main id="app">Loading…</main>', true);
    return send(reply, 200, "text/html; charset=utf-8", html);
  });
  scope.get("/dashboard/export.csv", async (request, reply) => {
    const owner = await ownerOf(request);
    if (!owner) return signInFirst(reply);
    return exportCsv(app, owner, request, reply);
  });
  scope.get("/dashboard/topups.csv", async (request, reply) => {
    const owner = await ownerOf(request);
    if (!owner) return signInFirst(reply);
    const csv = await topupsCsv(app.db, owner.accountId);
    return send(reply, 200, "text/csv; charset=utf-8", csv, {
      "content-disposition": 'attachment; filename="blockgate-topups.csv"',
    });
  });
}

function signInFirst(reply: FastifyReply) {
  return sendReply(reply, {
    status: 401,
    body: { errors: [{ message: "sign in first", extensions: { code: "UNAUTHENTICATED" } }] },
  });
}

async function exportCsv(
  app: GatewayServices,
  owner: TokenOwner,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const account = await findAccount(app.db, owner.accountId);
  if (!account) return send(reply, 404, "text/plain", "no account");
  const url = new URL(request.url, "http://gateway");
  const rule = app.config.billing.cycle;
  const current = cycleContaining(account.createdAt, new Date(), rule);
  const index = url.searchParams.has("cycle")
    ? Number(url.searchParams.get("cycle"))
    : current.index;
  if (!Number.isInteger(index) || index < 0 || index > current.index)
    return send(reply, 400, "text/plain", "no such cycle");
  const cycle = cycleAt(account.createdAt, index, rule);
  const kind = url.searchParams.get("kind") === "usage" ? "usage" : "audit";
  const csv =
    kind === "usage"
      ? await usageCsv(app.db, account.id, cycle)
      : await auditCsv(app.db, account.id, cycle);
  const name = `blockgate-${account.name}-${kind}-${cycle.start.toISOString().slice(0, 10)}.csv`;
  return send(reply, 200, "text/csv; charset=utf-8", csv, {
    "content-disposition": `attachment; filename="${name}"`,
  });
}
