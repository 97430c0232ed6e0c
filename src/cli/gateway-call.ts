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

/** POSTs `body` as JSON to the gateway's `path`; null when nothing answers there. */
export async function postToGateway(
  gateway: GatewayHandle,
  path: string,
  body: unknown,
): Promise<{ status: number; json: unknown } | null> {
  try {
    const res = await fetch(`${gateway.url}${path}`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${gateway.credential}`,
        "content-type": "application/json",
      },
      body: JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as unknown };
  } catch {
    return null; // the gateway that wrote the file is gone, or its answer is not JSON
  }
}
