-- migration: expand
-- How many of the calls a record stands for were answered from the response cache (src/cache/):
-- 0 or 1 on the JSON-RPC routes, the count of cached look-ups in a unified GraphQL request. Hits
-- are charged as misses (spec §8); this column is how a client or an operator tells them apart.
ALTER TABLE audit_records ADD COLUMN cache_hits integer NOT NULL DEFAULT 0 CHECK (cache_hits >= 0);
