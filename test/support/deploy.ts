import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { ROOT } from "../../scripts/build-config.mjs";
import type { Config } from "../../src/config/schema.ts";

/** Every YAML document of a file, as plain values; a document that does not parse fails. */
export function yamlDocuments(path: string): unknown[] {
  const docs = parseAllDocuments(readFileSync(join(ROOT, path), "utf8"), { merge: true });
  const list = Array.isArray(docs) ? docs : [docs];
  return list.map((doc) => {
    if (doc.errors.length > 0) throw new Error(`${path}: ${doc.errors[0]!.message}`);
    return doc.toJS();
  });
}

/** The TypeScript and JavaScript files under a folder of the repository. */
function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true })
    .map(String)
    .filter((p) => /\.(ts|js|mjs)$/.test(p))
    .map((p) => join(dir, p));
}

/**
 * The environment variables the gateway reads: what its code reads by name (`process.env.NAME`),
 * and the secrets its configuration names (passwordEnv, adminSecretEnv).
 */
export function knownEnvNames(config: Config): Set<string> {
  const names = new Set<string>();
  for (const file of [...sources("src"), ...sources("bin")]) {
    const text = readFileSync(join(ROOT, file), "utf8");
    for (const m of text.matchAll(/process\.env\.([A-Z][A-Z0-9_]*)/g)) names.add(m[1]!);
  }
  for (const name of configSecretNames(config)) names.add(name);
  return names;
}

/** The variables a configuration's upstreams take their secrets from. */
export function configSecretNames(config: Config): string[] {
  const out: string[] = [];
  for (const perNetwork of Object.values(config.upstreams)) {
    for (const list of Object.values(perNetwork ?? {})) {
      for (const entry of list as unknown[]) {
        if (typeof entry !== "object" || entry === null) continue;
        for (const field of ["passwordEnv", "adminSecretEnv"]) {
          const name = (entry as Record<string, unknown>)[field];
          if (typeof name === "string") out.push(name);
        }
      }
    }
  }
  return out;
}

/** `30s`, `1m30s`, `500ms` (compose durations) in milliseconds. */
export function durationMs(text: string): number {
  const units: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, us: 0.001 };
  let total = 0;
  for (const m of text.matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s|us)/g))
    total += Number(m[1]) * units[m[2]!]!;
  return total;
}
