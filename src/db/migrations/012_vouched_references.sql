-- migration: expand
-- The settle statement (src/ledger/settle-queue.ts) checks the references of the rows it writes
-- itself, as part of its own plan, and says so; the reference triggers of 011 then stand aside for
-- that one statement. Every other statement that writes audit records or ledger entries is checked
-- by the triggers as before.
--
-- Why: the two triggers were some 30% of the settle statement's CPU time in PostgreSQL (per
-- statement, bench/settle.ts reading the backend's CPU: 385 → 270 µs for one call, 450 → 300 for
-- four, without them), almost all of it fixed cost — a PL/pgSQL call, its SPI query's executor
-- start, the transition tables — paid on every statement, and the statement is most of what a
-- request through the gateway waits for under load. The same look-ups inside the statement's own
-- plan cost some 45-60 µs of that: 450 → 375 µs for four calls.
--
-- How the statement vouches: it sets blockgate.references_vouched, local to its transaction, to
-- its own statement_timestamp() — after its look-ups found every account, token and hold it names,
-- and in the same plan (a missing one fails the statement, SQLSTATE 23503, through
-- missing_reference below). A trigger's WHEN compares that value with the statement_timestamp() of
-- the statement firing it: any other statement, even later in the same transaction, differs, and
-- is checked (PostgreSQL's clock counts microseconds and each statement is a message of its own;
-- PGlite's counts milliseconds, which is one reason PGlite's settles never vouch). Should the
-- statement's plan ever not evaluate its look-ups (nothing joined to them), nothing is vouched and
-- the triggers check it: it fails safe. The statement runs only on connections that plan with
-- sequential scans off (Database.settles), so its look-ups stay index look-ups as the tables grow,
-- as the triggers' own functions do (011).
DROP TRIGGER audit_records_references ON audit_records;
CREATE TRIGGER audit_records_references AFTER INSERT ON audit_records
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT
  WHEN (current_setting('blockgate.references_vouched', true)
        IS DISTINCT FROM statement_timestamp()::text)
  EXECUTE FUNCTION audit_records_references();

DROP TRIGGER ledger_entries_references ON ledger_entries;
CREATE TRIGGER ledger_entries_references AFTER INSERT ON ledger_entries
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT
  WHEN (current_setting('blockgate.references_vouched', true)
        IS DISTINCT FROM statement_timestamp()::text)
  EXECUTE FUNCTION ledger_entries_references();

-- Fails the statement that calls it as a missing foreign key would. Returns text only so that it
-- can stand in a CASE beside set_config's result.
CREATE FUNCTION missing_reference(what text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '%: a row names an account, token or hold that does not exist', what
    USING ERRCODE = 'foreign_key_violation';
END $$;
