import { randomBytes, timingSafeEqual } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import type { Config } from "../../config/schema.ts";

/**
 * PGlite is one process's database: while the gateway holds it, the CLI must not open it too.
 * The gateway therefore writes where it listens and a random secret next to the PGlite folder
 * (mode 0600, like Core's .cookie), and the CLI sends its commands there instead.
 */
export interface AdminHandle {
  url: string;
  secret: string;
  /** The gateway process that wrote the file (absent in files written before it was kept). */
  pid?: number;
}

/**
 * Whether a gateway on this store writes the file: not for an in-memory store, which no other
 * process can open and which has no folder to write next to (the file landed in the working
 * directory, as `memory:.admin.json`).
 */
export function writesAdminFile(config: Config): boolean {
  return !config.database.pgliteDir.startsWith("memory://");
}

export function adminFilePath(config: Config): string {
  return `${config.database.pgliteDir.replace(/\/+$/, "")}.admin.json`;
}

export function writeAdminFile(config: Config, url: string): AdminHandle & { remove(): void } {
  const secret = randomBytes(32).toString("hex");
  const path = adminFilePath(config);
  writeFileSync(path, JSON.stringify({ url, secret, pid: process.pid }), { mode: 0o600 });
  return { url, secret, remove: () => rmSync(path, { force: true }) };
}

export function readAdminFile(config: Config): AdminHandle | null {
  try {
    const parsed = JSON.parse(readFileSync(adminFilePath(config), "utf8")) as Partial<AdminHandle>;
    if (typeof parsed.url !== "string" || typeof parsed.secret !== "string") return null;
    return {
      url: parsed.url,
      secret: parsed.secret,
      ...(Number.isSafeInteger(parsed.pid) ? { pid: parsed.pid } : {}),
    };
  } catch {
    return null;
  }
}

export function adminAuthorized(header: string | undefined, secret: string): boolean {
  const expected = Buffer.from(`Bearer ${secret}`);
  const given = Buffer.from(header ?? "");
  return given.length === expected.length && timingSafeEqual(given, expected);
}
