import { createServer } from "node:net";
import type { ConfigInput } from "../../src/config/schema.ts";
import type { ReadyReport } from "../../src/routes/health/readiness.ts";
import type { TestGateway } from "./harness.ts";

/** Two networks, so that one can fail while the other serves. */
export const NETWORKS: ConfigInput["networks"] = ["mainnet", "signet"];

export async function readyz(
  t: TestGateway,
): Promise<{ status: number; body: ReadyReport; headers: Headers }> {
  const res = await fetch(`${t.url}/readyz`);
  return { status: res.status, body: (await res.json()) as ReadyReport, headers: res.headers };
}

/** `host:port` as pools name their members. */
export const nameOf = (url: string) => {
  const u = new URL(url);
  return `${u.hostname}:${u.port}`;
};

/** A loopback port nothing listens on: connections to it are refused. */
export async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
