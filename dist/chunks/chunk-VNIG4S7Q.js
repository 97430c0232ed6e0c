// Built by `npm run build` from src/ (scripts/build.mjs); do not edit.

// src/db/concurrent-create.ts
function lostCreateRace(err) {
  const code = err?.code;
  return code === "23505" || code === "42710" || code === "42P07" || code === "42P06";
}

export {
  lostCreateRace
};
