import type { Config } from "../config/schema.ts";
import { readAdminFile } from "../routes/admin/admin-file.ts";

/** A running gateway of this config, and the credential its /admin/* paths take from the CLI. */
export interface GatewayHandle {
  url: string;
  credential: string;
}

/**
 * How the CLI reaches the gateway that runs: where the hand-off file (admin-file.ts) says, with
 * its per-start secret; `BLOCKGATE_OPERATOR_TOKEN`, when set, is sent instead (the operator
 * credential opens every /admin path), and without a file it reaches the config's own address
 * (PostgreSQL stores write no file). Null when neither is known.
 */
export function findGateway(config: Config, env: NodeJS.ProcessEnv): GatewayHandle | null {
  const admin = readAdminFile(config);
  const token = env.BLOCKGATE_OPERATOR_TOKEN || undefined;
  if (admin) return { url: admin.url, credential: token ?? admin.secret };
  if (!token) return null;
  const host = config.server.host.includes(":") ? `[${config.server.host}]` : config.server.host;
  return { url: `http://${host}:${config.server.port}`, credential: token };
}

/** The gateway's answer (its JSON body, or null when the body is not JSON), or why there is none. */
export type GatewayAnswer = { status: number; json: unknown } | { unreachable: string };

/** POSTs `body` as JSON to the gateway's `path`. */
export async function postToGateway(
  gateway: GatewayHandle,
  path: string,
  body: unknown,
): Promise<GatewayAnswer> {
  let res: Response;
  try {
    res = await fetch(`${gateway.url}${path}`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${gateway.credential}`,
        "content-type": "application/json",
      },
      body: JSON.stringify(body),
    });
  } catch (err) {
    // fetch says "fetch failed"; what failed (ECONNREFUSED, a reset) is its cause.
    const cause = (err as { cause?: { message?: string } }).cause?.message;
    return { unreachable: cause ?? (err as Error).message };
  }
  const text = await res.text().catch(() => "");
  try {
    return { status: res.status, json: JSON.parse(text) as unknown };
  } catch {
    return { status: res.status, json: null };
  }
}

/** An answer that is not what was asked for, in words: the status and the gateway's error. */
export function refusal(answer: { status: number; json: unknown }): string {
  const error = (answer.json as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  const said =
    typeof error?.message === "string"
      ? `${typeof error.code === "string" ? `${error.code}: ` : ""}${error.message}`
      : answer.json === null
        ? "an answer that is not JSON"
        : "an unexpected answer";
  return `HTTP ${answer.status}, ${said}`;
}
