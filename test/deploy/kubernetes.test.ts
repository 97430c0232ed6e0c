// deploy/kubernetes as kubectl would read it: every manifest parses; the Deployment's probes, ports,
// grace period and environment agree with the configuration its ConfigMap holds, parsed with the
// gateway's own schema; the Services, budget, autoscaler and migrate Job point at what exists.
import { existsSync, readdirSync } from "node:fs";
import { join, posix } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ROOT } from "../../scripts/build-config.mjs";
import { parseConfig } from "../../src/config/load.ts";
import { configSecretNames, knownEnvNames, yamlDocuments } from "../support/deploy.ts";

const DIR = "deploy/kubernetes";

interface Probe {
  httpGet: { path: string; port: string | number };
}
interface Container {
  image: string;
  args?: string[];
  ports?: { name: string; containerPort: number }[];
  env?: { name: string; value?: string }[];
  envFrom?: { secretRef?: { name: string } }[];
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  startupProbe?: Probe;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  volumeMounts?: { name: string; mountPath: string }[];
}
interface PodSpec {
  terminationGracePeriodSeconds?: number;
  restartPolicy?: string;
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number };
  containers: Container[];
  volumes?: { name: string; configMap?: { name: string }; secret?: { secretName: string } }[];
}
interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  spec?: unknown;
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}

const files = readdirSync(join(ROOT, DIR)).filter((f) => f.endsWith(".yaml"));
const manifests = files.flatMap((f) =>
  (yamlDocuments(join(DIR, f)) as Manifest[]).map((m) => ({ ...m, file: f })),
);
/** A value down a dotted path of a manifest, as the type the caller knows it has. */
const at = <T>(m: unknown, path: string): T =>
  path
    .split(".")
    .reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], m) as T;
type Selector = Record<string, string>;

const one = (kind: string) => {
  const found = manifests.filter((m) => m.kind === kind);
  expect(found, kind).toHaveLength(1);
  return found[0]!;
};

const deployment = one("Deployment");
const pod = at<PodSpec>(deployment, "spec.template.spec");
const gateway = pod.containers[0]!;
const configMap = one("ConfigMap");
const secret = one("Secret");
const job = one("Job");
const jobPod = at<PodSpec>(job, "spec.template.spec");

/** The config file a container reads: BLOCKGATE_CONFIG, resolved through its ConfigMap volume. */
function configText(container: Container, spec: PodSpec): string {
  const path = container.env?.find((e) => e.name === "BLOCKGATE_CONFIG")?.value ?? "";
  const mount = container.volumeMounts?.find((m) => path.startsWith(`${m.mountPath}/`));
  const volume = spec.volumes?.find((v) => v.name === mount?.name);
  expect(volume?.configMap?.name, path).toBe(configMap.metadata.name);
  return configMap.data![posix.relative(mount!.mountPath, path)]!;
}
const config = parseConfig(parse(configText(gateway, pod)));
const portOf = (c: Container, name: string | number) =>
  typeof name === "number" ? name : c.ports?.find((p) => p.name === name)?.containerPort;

describe("the Kubernetes manifests", () => {
  it("parse, each a named object of a known kind", () => {
    expect(files.length).toBeGreaterThanOrEqual(7);
    for (const m of manifests) {
      expect(m.apiVersion, m.file).toMatch(/^([a-z0-9.-]+\/)?v\d+(beta\d+)?$/);
      if (m.kind !== "Kustomization") expect(m.metadata?.name, m.file).toMatch(/^[a-z0-9-]+$/);
    }
    const kinds = manifests.map((m) => m.kind).sort();
    expect(kinds).toEqual(
      expect.arrayContaining(["ConfigMap", "Deployment", "HorizontalPodAutoscaler", "Job"]),
    );
    expect(kinds).toEqual(expect.arrayContaining(["PodDisruptionBudget", "Secret", "Service"]));
  });

  it("list in kustomization.yaml every file but the secrets' example and the per-release job", () => {
    const resources = at<string[]>(one("Kustomization"), "resources");
    expect([...resources].sort()).toEqual(
      files.filter((f) => !["kustomization.yaml", secret.file, job.file].includes(f)).sort(),
    );
  });

  it("probe /readyz for readiness and /healthz for liveness, on the gateway's HTTP port", () => {
    expect(gateway.readinessProbe?.httpGet.path).toBe("/readyz");
    expect(gateway.livenessProbe?.httpGet.path).toBe("/healthz");
    expect(gateway.startupProbe?.httpGet.path).toBe("/healthz");
    for (const probe of [gateway.readinessProbe, gateway.livenessProbe, gateway.startupProbe]) {
      expect(portOf(gateway, probe!.httpGet.port)).toBe(config.server.port);
    }
    expect(config.server.host).toBe("0.0.0.0");
    expect(gateway.ports?.map((p) => p.containerPort)).toEqual([8545, 50002]);
    expect(config.electrum.tls?.port).toBe(50002);
    expect(config.electrum.tls?.host).toBe("0.0.0.0");
  });

  it("give a pod longer to stop than the configured drain", () => {
    expect(pod.terminationGracePeriodSeconds! * 1000).toBeGreaterThan(config.server.drainTimeoutMs);
  });

  it("set resources, and run as the image's non-root user", () => {
    for (const [c, spec] of [
      [gateway, pod],
      [jobPod.containers[0]!, jobPod],
    ] as const) {
      expect(c.resources?.requests?.cpu).toBeDefined();
      expect(c.resources?.requests?.memory).toBeDefined();
      expect(c.resources?.limits?.memory).toBeDefined();
      expect(spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
    }
  });

  it("set only environment names the gateway reads, secrets from the Secret", () => {
    const known = knownEnvNames(config);
    const secretKeys = Object.keys(secret.stringData ?? secret.data ?? {});
    for (const c of [gateway, jobPod.containers[0]!]) {
      expect(c.envFrom?.map((e) => e.secretRef?.name)).toEqual([secret.metadata.name]);
      const given = [...(c.env ?? []).map((e) => e.name), ...secretKeys];
      expect(given.filter((n) => !known.has(n))).toEqual([]);
      expect(given).toEqual(expect.arrayContaining(["DATABASE_URL", "BLOCKGATE_CONFIG"]));
    }
    for (const name of configSecretNames(config)) expect(secretKeys).toContain(name);
    expect(config.database.migrate).toBe(false);
  });

  it("mount the Electrum certificate where the configuration reads it, from a Secret", () => {
    const tls = config.electrum.tls!;
    const mount = gateway.volumeMounts?.find((m) => tls.certFile.startsWith(`${m.mountPath}/`));
    expect(tls.keyFile.startsWith(`${mount?.mountPath}/`)).toBe(true);
    expect(pod.volumes?.find((v) => v.name === mount?.name)?.secret?.secretName).toBeTruthy();
  });

  it("expose HTTP and Electrum TLS through Services that select the gateway pods", () => {
    const labels = at<Selector>(deployment, "spec.template.metadata.labels");
    const pdbLabels = at<Selector>(one("PodDisruptionBudget"), "spec.selector.matchLabels");
    const services = manifests.filter((m) => m.kind === "Service");
    const ports = services.flatMap((s) => {
      expect(labels).toMatchObject(at<Selector>(s, "spec.selector"));
      return at<{ port: number; targetPort: string }[]>(s, "spec.ports").map((p) => [
        p.port,
        portOf(gateway, p.targetPort),
      ]);
    });
    expect(ports).toEqual([
      [8545, 8545],
      [50002, 50002],
    ]);
    expect(labels).toMatchObject(pdbLabels);
    expect(at<Selector>(deployment, "spec.selector.matchLabels")).toEqual(pdbLabels);
  });

  it("scale the Deployment with the autoscaler, which alone sets its replicas", () => {
    const hpa = one("HorizontalPodAutoscaler");
    expect(at(hpa, "spec.scaleTargetRef")).toMatchObject({
      kind: "Deployment",
      name: deployment.metadata.name,
    });
    const min = at<number>(hpa, "spec.minReplicas");
    expect(min).toBeGreaterThanOrEqual(2);
    expect(at(deployment, "spec.replicas")).toBeUndefined();
    expect(at<number>(one("PodDisruptionBudget"), "spec.minAvailable")).toBeLessThan(min);
  });

  it("migrate in a Job with the gateways' image, configuration and secrets", () => {
    const migrate = jobPod.containers[0]!;
    expect(migrate.args).toEqual(["migrate"]);
    expect(jobPod.restartPolicy).toBe("Never");
    expect(configText(migrate, jobPod)).toBe(configText(gateway, pod));
    const images = at<{ name: string; newTag: string }[]>(one("Kustomization"), "images");
    const image = images.find((i) => i.name === gateway.image);
    expect(migrate.image).toBe(`${gateway.image}:${image?.newTag}`);
  });

  it("has its page for operators", () => {
    expect(existsSync(join(ROOT, "docs/operators/kubernetes.md"))).toBe(true);
  });
});
