// npm 11 runs no install script it was not told about, and warns at `npm ci` for each package
// that has one and is not named in package.json's `allowScripts`. Naming every such package of the
// lockfile (allowed or not) keeps `npm ci` free of warnings; a new dependency that brings a script
// fails here until someone decides whether it may run.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const read = (file: string) => JSON.parse(readFileSync(join(root, file), "utf8"));

interface LockEntry {
  hasInstallScript?: boolean;
}

test("every package with an install script is named in allowScripts", () => {
  const lock = read("package-lock.json") as { packages: Record<string, LockEntry> };
  const allowScripts = (read("package.json") as { allowScripts?: Record<string, boolean> })
    .allowScripts;
  const withScripts = Object.entries(lock.packages)
    .filter(([, entry]) => entry.hasInstallScript)
    .map(([path]) => path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length));
  expect(withScripts.length).toBeGreaterThan(0);
  const unnamed = withScripts.filter((name) => !(name in (allowScripts ?? {})));
  expect(unnamed, "add them to package.json's allowScripts (false unless they must run)").toEqual(
    [],
  );
});
