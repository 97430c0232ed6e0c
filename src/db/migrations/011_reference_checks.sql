-- migration: expand
-- (Foreign keys give way to equivalent checks; what the new triggers refuse, no code ever did.)
-- The references of the two tables every call writes (audit_records, ledger_entries) are checked
-- once per statement, set-wise, instead of by row-level foreign keys. Each foreign key ran a
-- trigger and a locking lookup per inserted row, five per charged call (the one on a lease's entry
-- takes a share lock that concurrent settles turn into a multixact). bench/settle.ts, p50 of the
-- settle statement with them → with these checks (PostgreSQL 15, 2 cores, runs alternating):
-- 50 calls 2.97-3.05 → 1.98 ms, 4 calls 0.80 → 0.77 ms, one call 0.61-0.62 → 0.65-0.68 ms.
--
-- What the foreign keys guaranteed still holds, in two halves:
-- * a row inserted names only rows that exist: the AFTER INSERT statement triggers below look up
--   the distinct references of the statement's new rows (a transition table) and fail the
--   statement, with the foreign-key SQLSTATE, if one is missing; nothing of it is written;
-- * a row referenced is never deleted nor renumbered: accounts, tokens and audit records are never
--   deleted (accounts are kept, tokens revoked, audit records are the record) and no id changes,
--   refused by the triggers at the end. ledger_entries already refuses updates and deletes (001).
--   Without deletes there is nothing for the foreign keys' row locks to race with.
ALTER TABLE audit_records DROP CONSTRAINT audit_records_account_id_fkey;
ALTER TABLE audit_records DROP CONSTRAINT audit_records_token_id_fkey;
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_account_id_fkey;
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_hold_id_fkey;
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_audit_id_fkey;

-- Each trigger runs one query: the distinct ids named, as arrays, looked up with `id = ANY (…)` on
-- the primary keys (one query rather than one per reference: each costs some 30 µs, which a
-- one-call settle feels). The functions plan with sequential scans off: PL/pgSQL keeps a query's generic plan for the
-- connection's life, and one made while a table was small would scan the whole table on every
-- statement once it is large (measured: 27 ms a settle of 50 calls, against 2.5 with the index).
CREATE FUNCTION audit_records_references() RETURNS trigger LANGUAGE plpgsql
  SET enable_seqscan = off AS $$
BEGIN
  IF EXISTS (
    SELECT 1
    FROM (SELECT array_agg(DISTINCT account_id) FILTER (WHERE account_id IS NOT NULL) AS accounts,
                 array_agg(DISTINCT token_id) FILTER (WHERE token_id IS NOT NULL) AS tokens
          FROM added) named
    WHERE (SELECT count(*) FROM accounts WHERE id = ANY (named.accounts)) < cardinality(named.accounts)
       OR (SELECT count(*) FROM tokens WHERE id = ANY (named.tokens)) < cardinality(named.tokens)
  ) THEN
    RAISE EXCEPTION 'audit_records: a record names an account or token that does not exist'
      USING ERRCODE = 'foreign_key_violation';
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER audit_records_references AFTER INSERT ON audit_records
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION audit_records_references();

CREATE FUNCTION ledger_entries_references() RETURNS trigger LANGUAGE plpgsql
  SET enable_seqscan = off AS $$
BEGIN
  IF EXISTS (
    SELECT 1
    FROM (SELECT array_agg(DISTINCT account_id) AS accounts,
                 array_agg(DISTINCT hold_id) FILTER (WHERE hold_id IS NOT NULL) AS holds,
                 array_agg(audit_id) FILTER (WHERE audit_id IS NOT NULL) AS audits
          FROM added) named
    WHERE (SELECT count(*) FROM accounts WHERE id = ANY (named.accounts)) < cardinality(named.accounts)
       OR (SELECT count(*) FROM ledger_entries WHERE id = ANY (named.holds)) < cardinality(named.holds)
       OR (SELECT count(*) FROM audit_records WHERE id = ANY (named.audits)) < cardinality(named.audits)
  ) THEN
    RAISE EXCEPTION 'ledger_entries: an entry names an account, hold or audit record that does not exist'
      USING ERRCODE = 'foreign_key_violation';
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER ledger_entries_references AFTER INSERT ON ledger_entries
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION ledger_entries_references();

CREATE FUNCTION referenced_rows_stay() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '%: rows are never deleted, and their ids and references never change',
    TG_TABLE_NAME USING ERRCODE = 'restrict_violation';
END $$;
CREATE TRIGGER accounts_stay BEFORE DELETE OR UPDATE OF id ON accounts
  FOR EACH ROW EXECUTE FUNCTION referenced_rows_stay();
CREATE TRIGGER tokens_stay BEFORE DELETE OR UPDATE OF id, account_id ON tokens
  FOR EACH ROW EXECUTE FUNCTION referenced_rows_stay();
CREATE TRIGGER audit_records_stay BEFORE DELETE OR UPDATE OF id, account_id, token_id
  ON audit_records FOR EACH ROW EXECUTE FUNCTION referenced_rows_stay();
CREATE TRIGGER accounts_not_truncated BEFORE TRUNCATE ON accounts
  FOR EACH STATEMENT EXECUTE FUNCTION referenced_rows_stay();
CREATE TRIGGER tokens_not_truncated BEFORE TRUNCATE ON tokens
  FOR EACH STATEMENT EXECUTE FUNCTION referenced_rows_stay();
CREATE TRIGGER audit_records_not_truncated BEFORE TRUNCATE ON audit_records
  FOR EACH STATEMENT EXECUTE FUNCTION referenced_rows_stay();
CREATE TRIGGER ledger_entries_not_truncated BEFORE TRUNCATE ON ledger_entries
  FOR EACH STATEMENT EXECUTE FUNCTION referenced_rows_stay();
