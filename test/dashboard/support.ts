import type { TestGateway } from "../support/harness.ts";

/** Signs in at /dashboard/session with a token; the session cookie's `name=value`, or null. */
export async function signIn(t: TestGateway, token: string): Promise<string | null> {
  const res = await fetch(`${t.url}/dashboard/session`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ token }).toString(),
    redirect: "manual",
  });
  const cookie = res.headers.get("set-cookie");
  return res.status === 303 && cookie ? cookie.split(";")[0]! : null;
}

/** Asks the dashboard's GraphQL endpoint with a session cookie. */
export async function dashboardQuery(
  t: TestGateway,
  cookie: string | null,
  query: string,
): Promise<{
  status: number;
  json: { data?: unknown; errors?: { extensions?: { code?: string } }[] };
}> {
  const res = await fetch(`${t.url}/dashboard/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(cookie ? { cookie } : {}) },
    body: JSON.stringify({ query }),
  });
  return { status: res.status, json: (await res.json()) as never };
}
