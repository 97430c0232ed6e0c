import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The project folder, the one holding package.json. Files read at run time (schema/, data/,
 * src/db/migrations/) are found from it, because this module runs both from src/ (tsx, vitest)
 * and bundled into dist/ (`npm start`), where paths relative to the module would differ.
 */
export const PROJECT_ROOT = findRoot(dirname(fileURLToPath(import.meta.url)));

function findRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json"))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

export function projectPath(...parts: string[]): string {
  return join(PROJECT_ROOT, ...parts);
}
