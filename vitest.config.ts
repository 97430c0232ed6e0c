import { createRequire } from "node:module";
import { defineConfig } from "vitest/config";

const require = createRequire(import.meta.url);

/**
 * Files that run isolated, in a fresh module graph: those that replace a module with vi.mock
 * (only a fresh graph sees the replacement), and those that measure what V8 promotes to its old
 * generation (test/support/promoted.ts), which depends on how code already run in the worker
 * left V8's allocation feedback, and the timing of input scaling (test/support/scaling.ts), whose
 * largest runs a shared worker's heap slows by its collections. Every other file shares its
 * worker's module graph (see `isolate` below).
 */
const ISOLATED = [
  "test/http/input-scaling.security.test.ts",
  "test/jsonrpc/raw-answer.test.ts",
  "test/util/in-flight-map.test.ts",
  "test/util/lru.test.ts",
];

export default defineConfig({
  resolve: {
    // graphql 16 ships CJS (main) and ESM (module) side by side without an exports map. Node
    // gives every dependency (Pothos, Yoga) the CJS build; Vite would give our sources the ESM
    // one, and graphql refuses schemas from "another realm". One copy for everyone, as in `npm start`.
    alias: [{ find: /^graphql$/, replacement: require.resolve("graphql") }],
  },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Tests share one PostgreSQL server; each file makes its own schema, so files may run in parallel.
    pool: "forks",
    // Three files at a time on any machine (vitest's default is one fewer than the cores: one on
    // the two-core machines we run on). Most files wait on sockets, child processes and the
    // database more than they compute, so three overlap well on two cores
    // (docs/decisions/0033-suite-files-in-parallel.md).
    maxWorkers: 3,
    // The workers' PGlite stores run on V8's baseline WebAssembly compiler alone: each store runs
    // briefly, and the optimizing tier's compiling (background threads, per worker) cost more CPU
    // than its faster code saved (docs/keeping-the-suite-fast.md). Results do not depend on it.
    execArgv: ["--liftoff-only"],
    // Once per run: a migrated PGlite snapshot (each in-memory store starts from it instead of
    // initdb) and the Chromium the browser tests launch (found, or unpacked on a fresh install).
    globalSetup: ["test/support/global-setup.ts"],
    projects: [
      {
        extends: true,
        test: {
          name: "shared",
          include: ["test/**/*.test.ts"],
          exclude: ISOLATED,
          // A worker keeps its module graph from file to file instead of importing the app anew
          // for each (half the suite's time, when measured). Files keep their state in what
          // they create (a gateway, a devnet, a schema), and module state is caches keyed by
          // those objects, so sharing the graph changes no test's outcome.
          isolate: false,
        },
      },
      { extends: true, test: { name: "isolated", include: ISOLATED, isolate: true } },
    ],
  },
});
