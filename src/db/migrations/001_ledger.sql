-- migration: expand
-- Accounts, hashed tokens, the append-only ledger and the audit log.
-- balance is the posted balance (granted − charged); held is the sum of open reservations.
-- Both are caches of ledger_entries, kept in the same transactions that append the entries, so the
-- CHECKs below are the last line of defence for invariant 1 (no balance below zero).
CREATE TABLE accounts (
  id          bigserial PRIMARY KEY,
  name        text NOT NULL UNIQUE,
  created_at  timestamptz NOT NULL DEFAULT now(),
  balance     bigint NOT NULL DEFAULT 0 CHECK (balance >= 0),
  held        bigint NOT NULL DEFAULT 0 CHECK (held >= 0 AND held <= balance)
);

-- A token is stored only as its SHA-256; hint is a few characters for people to tell tokens apart.
CREATE TABLE tokens (
  id          bigserial PRIMARY KEY,
  account_id  bigint NOT NULL REFERENCES accounts(id),
  hash        bytea NOT NULL UNIQUE,
  hint        text NOT NULL,
  label       text,
  created_at  timestamptz NOT NULL DEFAULT now(),
  revoked_at  timestamptz
);
CREATE INDEX tokens_account ON tokens(account_id);

-- One row per call the gateway answered on a backend route (rejections included).
CREATE TABLE audit_records (
  id            bigserial PRIMARY KEY,
  at            timestamptz NOT NULL DEFAULT now(),
  request_id    text NOT NULL,
  account_id    bigint REFERENCES accounts(id),
  token_id      bigint REFERENCES tokens(id),
  backend       text NOT NULL,
  network       text NOT NULL,
  method        text NOT NULL,
  outcome       text NOT NULL,
  error_code    text,
  http_status   integer NOT NULL,
  estimated_cc  bigint NOT NULL DEFAULT 0 CHECK (estimated_cc >= 0),
  charged_cc    bigint NOT NULL DEFAULT 0 CHECK (charged_cc >= 0),
  complexity    integer,
  upstream      text,
  duration_ms   integer
);
CREATE INDEX audit_account_at ON audit_records(account_id, at);

-- Append-only. Signed amounts: grant +, hold −, release +, charge −.
-- Σ amount over an account = balance − held; Σ over grant and charge = balance.
CREATE TABLE ledger_entries (
  id          bigserial PRIMARY KEY,
  account_id  bigint NOT NULL REFERENCES accounts(id),
  at          timestamptz NOT NULL DEFAULT now(),
  kind        text NOT NULL CHECK (kind IN ('grant', 'hold', 'release', 'charge')),
  amount      bigint NOT NULL,
  hold_id     bigint REFERENCES ledger_entries(id),
  audit_id    bigint REFERENCES audit_records(id),
  memo        text,
  CHECK ((kind IN ('grant', 'release')) = (amount >= 0)),
  CHECK ((kind = 'release') = (hold_id IS NOT NULL)),
  CHECK ((kind = 'charge') = (audit_id IS NOT NULL))
);
CREATE INDEX ledger_account ON ledger_entries(account_id);
-- A hold is settled at most once, whatever races or retries happen.
CREATE UNIQUE INDEX ledger_one_release_per_hold ON ledger_entries(hold_id) WHERE kind = 'release';
CREATE UNIQUE INDEX ledger_one_charge_per_audit ON ledger_entries(audit_id) WHERE kind = 'charge';
-- Open holds, for the sweeper that voids reservations orphaned by a crash.
CREATE INDEX ledger_holds ON ledger_entries(at) WHERE kind = 'hold';

-- Entries are never updated or deleted (invariant 4).
CREATE FUNCTION ledger_entries_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'ledger_entries is append-only';
END $$;
CREATE TRIGGER ledger_entries_no_update BEFORE UPDATE OR DELETE ON ledger_entries
  FOR EACH ROW EXECUTE FUNCTION ledger_entries_append_only();
