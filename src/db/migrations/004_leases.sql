-- migration: expand
-- Credit leases and gateway processes (src/ledger/leases.ts, src/metering/credits.ts).
-- A gateway process takes credits from an account in leases and reserves each call against its
-- lease in memory. A lease is a ledger entry like a hold: kind 'lease', amount −L, and
-- accounts.leased += L. Each charge taken from a lease is a 'charge' entry that names the lease
-- (hold_id) and lowers leased and balance together; what is left is given back by one
-- 'lease_return' entry (+R, leased −= R). So (`blockgate ledger check`):
--   held   = −Σ(hold, release)                                   (per-call holds, as before)
--   leased = −Σ(lease, lease_return) + Σ(charges that name a lease)
--   balance = granted − Σ charges, as before
-- The guard of every reservation is balance − held − leased; what an account is shown as
-- available is balance − held: credits leased to a process and not yet used are still its own.
ALTER TABLE accounts ADD COLUMN leased bigint NOT NULL DEFAULT 0;
ALTER TABLE accounts ADD CONSTRAINT accounts_leased_check
  CHECK (leased >= 0 AND held + leased <= balance);

-- A running gateway. `instance` is stable across restarts (config ledger.instance, or host and
-- port): a process that starts with an instance whose earlier incarnation is still registered knows
-- that incarnation died, and voids its leases and holds at once. `heartbeat_at` is renewed every
-- fraction of the lease TTL; leases of a process whose heartbeat is older than the TTL are voided
-- by any live process's sweep.
CREATE TABLE gateway_processes (
  id            text PRIMARY KEY,
  instance      text NOT NULL,
  started_at    timestamptz NOT NULL DEFAULT now(),
  heartbeat_at  timestamptz NOT NULL DEFAULT now(),
  stopped_at    timestamptz
);
CREATE INDEX gateway_processes_instance ON gateway_processes(instance) WHERE stopped_at IS NULL;

ALTER TABLE ledger_entries ADD COLUMN process_id text;

ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_kind_check;
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_check;
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_check1;
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_kind_check
  CHECK (kind IN ('grant', 'hold', 'release', 'charge', 'lease', 'lease_return'));
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_sign_check
  CHECK ((kind IN ('grant', 'release', 'lease_return')) = (amount >= 0));
-- A release closes a hold, a return closes a lease, and a charge may name the lease it came from.
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_hold_ref_check
  CHECK (CASE WHEN kind IN ('release', 'lease_return') THEN hold_id IS NOT NULL
              WHEN kind = 'charge' THEN true
              ELSE hold_id IS NULL END);
-- Holds and leases name the process that made them, so its death can be noticed at once.
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_process_check
  CHECK ((kind = 'lease') <= (process_id IS NOT NULL));

DROP INDEX ledger_one_release_per_hold;
-- A hold is released at most once, a lease returned at most once, whatever races or retries happen.
CREATE UNIQUE INDEX ledger_one_close_per_hold ON ledger_entries(hold_id)
  WHERE kind IN ('release', 'lease_return');
-- Open leases, for the sweep and for a restarted process voiding its predecessor's.
CREATE INDEX ledger_leases ON ledger_entries(process_id) WHERE kind IN ('lease', 'hold');
-- Charges of a lease, summed when it is returned.
CREATE INDEX ledger_lease_charges ON ledger_entries(hold_id) WHERE kind = 'charge';
