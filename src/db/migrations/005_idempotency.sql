-- migration: expand
-- Idempotent retries (src/metering/idempotency.ts). A request sent with an Idempotency-Key is
-- remembered per account: the hash of what was asked (route, network, body), when its charge was
-- committed — set by the same settle statement that writes the charge and its audit records, so a
-- crash can never leave a charge without this mark — and, once written, the answer itself. A
-- retry with the same key and request gets that answer back and is not charged again.
CREATE TABLE idempotency_keys (
  account_id    bigint NOT NULL REFERENCES accounts(id),
  key           text NOT NULL,
  request_hash  bytea NOT NULL,
  -- The gateway process answering it: a pending key of a process known dead is free again.
  process_id    text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  settled_at    timestamptz,
  status        integer,
  headers       jsonb,
  body          bytea,
  PRIMARY KEY (account_id, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys(created_at);
