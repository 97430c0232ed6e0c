import { createRequire } from "node:module";
import { defineConfig } from "vitest/config";

const require = createRequire(import.meta.url);

export default defineConfig({
  resolve: {
    // graphql 16 ships CJS (main) and ESM (module) side by side without an exports map. Node
    // gives every dependency (Pothos, Yoga) the CJS build; Vite would give our sources the ESM
    // one, and graphql refuses schemas from "another realm". One copy for everyone, as in `npm start`.
    alias: [{ find: /^graphql$/, replacement: require.resolve("graphql") }],
  },
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Tests share one PostgreSQL server; each file makes its own schema, so files may run in parallel.
    pool: "forks",
    // Once per run: a migrated PGlite snapshot (each in-memory store starts from it instead of
    // initdb) and the Chromium the browser tests launch (found, or unpacked on a fresh install).
    globalSetup: ["test/support/global-setup.ts"],
  },
});
