import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { issueOperatorToken } from "../../src/access/operator-token.ts";
import { type RunningGateway, startGateway } from "../../src/app/app.ts";
import {
  resolveElectrumUpstreams,
  resolveEsploraUpstreams,
  resolveGraphUpstreams,
  resolveNodeUpstreams,
} from "../../src/app/upstreams.ts";
import { loadConfig } from "../../src/config/load.ts";
import { type Devnet, startDevnet } from "../../src/devnet/devnet.ts";
import { readAdminFile } from "../../src/routes/admin/admin-file.ts";

export interface OperatorCredential {
  token: string;
  sha256: string;
  headers: { authorization: string };
}

/** A fresh operator token, its digest as config wants it, and the header that carries it. */
export function operatorCredential(): OperatorCredential {
  const { token, sha256 } = issueOperatorToken();
  return { token, sha256, headers: { authorization: `Bearer ${token}` } };
}

/** Texts an answer to an unauthorized caller must not contain: metric names and their help. */
export const METRIC_NAMES = [
  "blockgate_http_requests_total",
  "blockgate_upstream_up",
  "blockgate_credits_charged_total",
  "blockgate_process_cpu",
  "# HELP",
];

export interface OperatorGateway {
  gateway: RunningGateway;
  devnet: Devnet;
  url: string;
  logs: string[];
  operator: OperatorCredential;
  /** The per-start secret the gateway wrote next to its PGlite folder for the CLI. */
  cliSecret: string;
  /** BLOCKGATE_CONFIG for a `blockgate` CLI process that should find this gateway. */
  env: Record<string, string>;
  close(): Promise<void>;
}

/**
 * A gateway as `npm start` runs it on PGlite — a folder on disk and the CLI hand-off file next to
 * it — with one operator token configured. Regtest only: what is tested here is not the routes.
 */
export async function startOperatorGateway(): Promise<OperatorGateway> {
  const dir = mkdtempSync(join(tmpdir(), "bg-operator-"));
  const operator = operatorCredential();
  const configFile = join(dir, "blockgate.json");
  writeFileSync(
    configFile,
    JSON.stringify({
      server: { port: 0 },
      networks: ["regtest"],
      database: { pgliteDir: join(dir, "db") },
      demo: { enabled: false },
      log: { level: "info" },
      operator: { tokenSha256: [operator.sha256] },
    }),
  );
  const config = loadConfig(configFile);
  const devnet = await startDevnet(config.networks);
  const logs: string[] = [];
  const gateway = await startGateway(config, {
    nodeUpstreams: resolveNodeUpstreams(config, devnet),
    graphUpstreams: resolveGraphUpstreams(config, devnet),
    electrumUpstreams: resolveElectrumUpstreams(config, devnet),
    esploraUpstreams: resolveEsploraUpstreams(config, devnet),
    logDestination: new Writable({
      write(chunk: Buffer, _enc, done) {
        logs.push(chunk.toString("utf8"));
        done();
      },
    }),
  });
  const handoff = readAdminFile(config);
  if (!handoff) throw new Error("the gateway wrote no CLI hand-off file");
  return {
    gateway,
    devnet,
    url: gateway.url,
    logs,
    operator,
    cliSecret: handoff.secret,
    env: { BLOCKGATE_CONFIG: configFile, DATABASE_URL: "" },
    async close() {
      await gateway.close();
      await devnet.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** POSTs a CLI command to /admin/cli with the given headers. */
export async function adminCli(
  url: string,
  argv: string[],
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await fetch(`${url}/admin/cli`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ argv }),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}
