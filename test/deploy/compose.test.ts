// compose.yaml as Docker Compose would read it: the services a fleet needs, each one's health, the
// gateways' configuration parsed with the gateway's own schema, and HAProxy sending traffic to
// every replica on the ports the image exposes, by /readyz.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ROOT } from "../../scripts/build-config.mjs";
import { parseConfig } from "../../src/config/load.ts";
import { configSecretNames, durationMs, knownEnvNames, yamlDocuments } from "../support/deploy.ts";
import { ops, readDockerfile } from "../support/dockerfile.ts";

interface Service {
  image?: string;
  build?: unknown;
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  ports?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test?: string[]; disable?: boolean };
  stop_grace_period?: string;
  restart?: string;
  hostname?: string;
}

const [compose] = yamlDocuments("compose.yaml") as [{ services: Record<string, Service> }];
const services = compose.services;
const gateways = Object.entries(services).filter(
  ([name, s]) => s.build !== undefined && name !== "migrate",
);

/** The file on this side of a `host:container[:ro]` volume mounted at `path` or above it. */
function hostFile(service: Service, path: string): string {
  for (const volume of service.volumes ?? []) {
    const [host = "", target = ""] = volume.split(":");
    if (path === target || path.startsWith(`${target}/`))
      return join(host, path.slice(target.length));
  }
  throw new Error(`${path} is not mounted`);
}

/** The configuration a gateway service reads, parsed as the gateway parses it. */
function configOf(service: Service) {
  const file = hostFile(service, service.environment!.BLOCKGATE_CONFIG!);
  return parseConfig(parse(readFileSync(join(ROOT, file), "utf8")));
}

describe("compose.yaml", () => {
  it("runs PostgreSQL, Redis, a migrate job, two gateways and a load balancer, each with a healthcheck", () => {
    expect(Object.keys(services).sort()).toEqual(
      ["gateway-1", "gateway-2", "lb", "migrate", "postgres", "redis"].sort(),
    );
    expect(gateways.map(([name]) => name)).toEqual(["gateway-1", "gateway-2"]);
    for (const [name, service] of Object.entries(services)) {
      if (name === "migrate") continue;
      expect(service.healthcheck?.test?.length, name).toBeGreaterThan(1);
    }
  });

  it("migrates once, after PostgreSQL is healthy and before any gateway starts", () => {
    const migrate = services.migrate!;
    expect(migrate.command).toEqual(["migrate"]);
    expect(migrate.restart).toBe("no");
    expect(migrate.depends_on?.postgres?.condition).toBe("service_healthy");
    for (const [name, gateway] of gateways) {
      expect(gateway.depends_on?.migrate?.condition, name).toBe("service_completed_successfully");
      expect(configOf(gateway).database.migrate, name).toBe(false);
    }
  });

  it("starts each gateway on its own config, with env names the gateway reads", () => {
    for (const [name, gateway] of [...gateways, ["migrate", services.migrate!] as const]) {
      const config = configOf(gateway);
      expect(config.server.host, name).toBe("0.0.0.0");
      expect(config.server.port, name).toBe(8545);
      const known = knownEnvNames(config);
      const given = Object.keys(gateway.environment ?? {});
      expect(
        given.filter((n) => !known.has(n)),
        name,
      ).toEqual([]);
      expect(given).toEqual(expect.arrayContaining(["DATABASE_URL", "REDIS_URL"]));
      for (const secret of configSecretNames(config)) expect(given, name).toContain(secret);
    }
    for (const [name, gateway] of gateways) {
      expect(gateway.command?.slice(0, 2), name).toEqual(["start", "--workers"]);
      expect(gateway.hostname, name).toBe(name);
    }
  });

  it("gives each gateway longer to stop than its drain, and the image's liveness check", () => {
    const [runtime] = readDockerfile(join(ROOT, "Dockerfile")).slice(-1);
    const [imageCheck] = ops(runtime!, "HEALTHCHECK");
    for (const [name, gateway] of gateways) {
      const drain = configOf(gateway).server.drainTimeoutMs;
      expect(durationMs(gateway.stop_grace_period ?? "10s"), name).toBeGreaterThan(drain);
      expect(gateway.healthcheck?.test, name).toEqual(imageCheck?.args);
    }
  });

  it("balances HTTP and Electrum TLS over every gateway by /readyz, on the image's ports", () => {
    const lb = services.lb!;
    expect(lb.ports).toEqual(["8545:8545", "50002:50002"]);
    expect(Object.keys(lb.depends_on ?? {}).sort()).toEqual(gateways.map(([n]) => n).sort());
    const cfg = readFileSync(
      join(ROOT, hostFile(lb, "/usr/local/etc/haproxy/haproxy.cfg")),
      "utf8",
    );
    const backends = cfg.split(/^backend /m).slice(1);
    expect(backends).toHaveLength(2);
    for (const backend of backends) {
      expect(backend).toMatch(/^\s+option httpchk GET \/readyz$/m);
      const servers = [...backend.matchAll(/^\s+server (\S+) (\S+):(\d+)(.*)$/gm)];
      expect(servers.map((m) => m[2]).sort()).toEqual(gateways.map(([n]) => n).sort());
      const port = servers[0]![3];
      for (const m of servers) expect(m[3]).toBe(port);
      // Electrum's port is health-checked on the HTTP port, where /readyz is.
      if (port === "50002") for (const m of servers) expect(m[4]).toContain("check port 8545");
    }
    expect(backends.map((b) => /:(\d+)/.exec(b)?.[1]).sort()).toEqual(["50002", "8545"]);
    const tls = configOf(gateways[0]![1]).electrum.tls;
    expect(tls?.port).toBe(50002);
    expect(tls?.host).toBe("0.0.0.0");
  });

  it("has its page for operators", () => {
    expect(existsSync(join(ROOT, "docs/operators/compose.md"))).toBe(true);
  });
});
