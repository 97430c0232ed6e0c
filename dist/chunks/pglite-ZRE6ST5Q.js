// Built by `npm run build` from src/ (scripts/build.mjs); do not edit.

// src/db/pglite.ts
import { EventEmitter } from "node:events";
import { mkdirSync, readFileSync } from "node:fs";
import { PGlite, types } from "@electric-sql/pglite";
async function openPglite(dataDir, opts = {}) {
  return wrapPglite(await createPglite(dataDir, opts));
}
async function createPglite(dataDir, opts = {}) {
  const inMemory = dataDir.startsWith("memory://");
  if (opts.fromSnapshot !== void 0 && !inMemory) {
    throw new Error(`A PGlite snapshot can only start a memory:// database, not ${dataDir}`);
  }
  if (!inMemory) mkdirSync(dataDir, { recursive: true });
  const snapshot = typeof opts.fromSnapshot === "string" ? new Blob([readFileSync(opts.fromSnapshot)]) : opts.fromSnapshot;
  return PGlite.create(dataDir, {
    // PostgreSQL zeroes its shared buffers at every start: PGlite's default pool takes a second
    // of WebAssembly to clear; 16 MB holds our embedded database many times over (measured:
    // opening the on-disk store 1.8 s -> 1.25 s). Production runs PostgreSQL itself.
    startParams: [...PGlite.defaultStartParams, "-c", "shared_buffers=16MB"],
    // Same numbers as the pg driver gives: int8 as a JS number (all our values fit in 2^53).
    parsers: { [types.INT8]: (v) => Number(v) },
    ...snapshot ? { loadDataDir: snapshot } : {}
  });
}
function wrapPglite(db) {
  const queryable = (q) => ({
    async query(sql, params) {
      const res = await q.query(sql, params);
      return { rows: res.rows };
    }
  });
  const signals = new EventEmitter();
  signals.setMaxListeners(0);
  return {
    kind: "pglite",
    namespace: "pglite",
    ...queryable(db),
    settles: { ...queryable(db), planned: "default" },
    async notify(channel, payload) {
      signals.emit(channel, payload);
    },
    listen(channel, fn) {
      signals.on(channel, fn);
    },
    listening: () => true,
    lead(_name, onChange) {
      onChange(true);
      return { leading: () => true, firstTry: Promise.resolve(true), stop: async () => {
      } };
    },
    // PGlite is one connection: its transactions run one at a time, which is what makes them safe.
    transaction: (fn) => db.transaction((tx) => fn(queryable(tx))),
    async exec(sql) {
      await db.exec(sql);
    },
    async close() {
      await db.close();
    }
  };
}
export {
  createPglite,
  openPglite,
  wrapPglite
};
