-- migration: expand
-- (Foreign keys give way to equivalent checks, as 011 did for the ledger's; what the new triggers
-- refuse, no code ever did.)
-- The references of the rows a chain event's webhook deliveries write are checked once per
-- statement, set-wise, instead of by row-level foreign keys: the event's messages (their
-- endpoints), the charge marks opened for them (idempotency_keys' accounts), then each attempt
-- (its message) and each delivered message's audit record. Each foreign key ran a trigger and a
-- locking look-up per row, on PGlite in the gateway's own thread, before a block's first POST
-- (figures: docs/benchmarks.md, bench/webhooks.ts).
--
-- What the foreign keys guaranteed still holds, in two halves:
-- * a row written names only rows that exist: the AFTER statement triggers below look up the
--   distinct references of the statement's new rows (a transition table), and of the messages it
--   updated (a delivery sets its audit record), and fail the statement, with the foreign-key
--   SQLSTATE, if one is missing; nothing of it is written;
-- * a row referenced is never deleted nor renumbered, and a reference never changes: endpoints end
--   (ended_at) and messages stay (their attempts are the dashboard's record); accounts and audit
--   records already stay (011).
ALTER TABLE webhook_messages DROP CONSTRAINT webhook_messages_endpoint_id_fkey;
ALTER TABLE webhook_messages DROP CONSTRAINT webhook_messages_audit_id_fkey;
ALTER TABLE webhook_attempts DROP CONSTRAINT webhook_attempts_message_id_fkey;
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_account_id_fkey;

-- The look-ups plan with sequential scans off, as 011's (a generic plan made while a table was
-- small would scan it whole once it is large).
CREATE FUNCTION webhook_messages_references() RETURNS trigger LANGUAGE plpgsql
  SET enable_seqscan = off AS $$
BEGIN
  IF EXISTS (
    SELECT 1
    FROM (SELECT array_agg(DISTINCT endpoint_id) AS endpoints,
                 array_agg(DISTINCT audit_id) FILTER (WHERE audit_id IS NOT NULL) AS audits
          FROM written) named
    WHERE (SELECT count(*) FROM webhook_endpoints WHERE id = ANY (named.endpoints))
            < cardinality(named.endpoints)
       OR (SELECT count(*) FROM audit_records WHERE id = ANY (named.audits))
            < cardinality(named.audits)
  ) THEN
    RAISE EXCEPTION 'webhook_messages: a message names an endpoint or audit record that does not exist'
      USING ERRCODE = 'foreign_key_violation';
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER webhook_messages_references AFTER INSERT ON webhook_messages
  REFERENCING NEW TABLE AS written FOR EACH STATEMENT
  EXECUTE FUNCTION webhook_messages_references();
CREATE TRIGGER webhook_messages_references_updated AFTER UPDATE ON webhook_messages
  REFERENCING NEW TABLE AS written FOR EACH STATEMENT
  EXECUTE FUNCTION webhook_messages_references();

CREATE FUNCTION webhook_attempts_references() RETURNS trigger LANGUAGE plpgsql
  SET enable_seqscan = off AS $$
BEGIN
  IF EXISTS (
    SELECT 1
    FROM (SELECT array_agg(DISTINCT message_id) AS messages FROM added) named
    WHERE (SELECT count(*) FROM webhook_messages WHERE id = ANY (named.messages))
            < cardinality(named.messages)
  ) THEN
    RAISE EXCEPTION 'webhook_attempts: an attempt names a message that does not exist'
      USING ERRCODE = 'foreign_key_violation';
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER webhook_attempts_references AFTER INSERT ON webhook_attempts
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT
  EXECUTE FUNCTION webhook_attempts_references();

CREATE FUNCTION idempotency_keys_references() RETURNS trigger LANGUAGE plpgsql
  SET enable_seqscan = off AS $$
BEGIN
  IF EXISTS (
    SELECT 1
    FROM (SELECT array_agg(DISTINCT account_id) AS accounts FROM added) named
    WHERE (SELECT count(*) FROM accounts WHERE id = ANY (named.accounts))
            < cardinality(named.accounts)
  ) THEN
    RAISE EXCEPTION 'idempotency_keys: a key names an account that does not exist'
      USING ERRCODE = 'foreign_key_violation';
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER idempotency_keys_references AFTER INSERT ON idempotency_keys
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT
  EXECUTE FUNCTION idempotency_keys_references();

CREATE TRIGGER webhook_endpoints_stay BEFORE DELETE OR UPDATE OF id ON webhook_endpoints
  FOR EACH ROW EXECUTE FUNCTION referenced_rows_stay();
CREATE TRIGGER webhook_messages_stay BEFORE DELETE OR UPDATE OF id, endpoint_id ON webhook_messages
  FOR EACH ROW EXECUTE FUNCTION referenced_rows_stay();
CREATE TRIGGER webhook_attempts_stay BEFORE UPDATE OF message_id ON webhook_attempts
  FOR EACH ROW EXECUTE FUNCTION referenced_rows_stay();
CREATE TRIGGER idempotency_keys_stay BEFORE UPDATE OF account_id ON idempotency_keys
  FOR EACH ROW EXECUTE FUNCTION referenced_rows_stay();
CREATE TRIGGER webhook_endpoints_not_truncated BEFORE TRUNCATE ON webhook_endpoints
  FOR EACH STATEMENT EXECUTE FUNCTION referenced_rows_stay();
CREATE TRIGGER webhook_messages_not_truncated BEFORE TRUNCATE ON webhook_messages
  FOR EACH STATEMENT EXECUTE FUNCTION referenced_rows_stay();
