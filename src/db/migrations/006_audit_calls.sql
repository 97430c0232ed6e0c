-- migration: expand
-- Failed authentications are not written a row per request (a flood of bad tokens would grow the
-- database by a row each): each process writes one audit record per source, route and minute, with
-- how many calls it stands for. Every other record stands for one call.
ALTER TABLE audit_records ADD COLUMN calls integer NOT NULL DEFAULT 1 CHECK (calls >= 1);
-- The client address of an aggregated failed authentication (the only records that keep one).
ALTER TABLE audit_records ADD COLUMN source text;
