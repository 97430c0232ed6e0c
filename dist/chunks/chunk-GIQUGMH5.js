// Built by `npm run build` from src/ (scripts/build.mjs); do not edit.

// src/admin/admin-file.ts
import { randomBytes, timingSafeEqual } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
function writesAdminFile(config) {
  return !config.database.pgliteDir.startsWith("memory://");
}
function adminFilePath(config) {
  return `${config.database.pgliteDir.replace(/\/+$/, "")}.admin.json`;
}
function writeAdminFile(config, url) {
  const secret = randomBytes(32).toString("hex");
  const path = adminFilePath(config);
  writeFileSync(path, JSON.stringify({ url, secret, pid: process.pid }), { mode: 384 });
  return { url, secret, remove: () => rmSync(path, { force: true }) };
}
function readAdminFile(config) {
  try {
    const parsed = JSON.parse(readFileSync(adminFilePath(config), "utf8"));
    if (typeof parsed.url !== "string" || typeof parsed.secret !== "string") return null;
    return {
      url: parsed.url,
      secret: parsed.secret,
      ...Number.isSafeInteger(parsed.pid) ? { pid: parsed.pid } : {}
    };
  } catch {
    return null;
  }
}
function adminAuthorized(header, secret) {
  const expected = Buffer.from(`Bearer ${secret}`);
  const given = Buffer.from(header ?? "");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export {
  writesAdminFile,
  adminFilePath,
  writeAdminFile,
  readAdminFile,
  adminAuthorized
};
