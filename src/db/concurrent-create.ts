/**
 * Whether an error is what PostgreSQL raises when a CREATE … IF NOT EXISTS lost a race with the
 * same CREATE in another session: IF NOT EXISTS is checked before the catalog row is written, so
 * processes starting together on an empty schema both try, and the slower fails once the other
 * has committed — on a catalog's unique index (23505), or as an object that already exists
 * (42710 for a table's row type, 42P07 for a relation, 42P06 for a schema). Whatever it wanted
 * now exists; the caller carries on.
 */
export function lostCreateRace(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === "23505" || code === "42710" || code === "42P07" || code === "42P06";
}
