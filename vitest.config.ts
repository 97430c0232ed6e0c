import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Tests share one PostgreSQL server; each file makes its own schema, so files may run in parallel.
    pool: "forks",
  },
});
