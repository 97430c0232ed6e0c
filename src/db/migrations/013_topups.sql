-- migration: expand
-- Top-ups: credits bought with bitcoin (decision 0050). Each invoice gets the next address of the
-- operator's watch-only descriptor; the counter below hands each index out once, across every
-- process on the database, in the statement that stores the invoice.
CREATE TABLE topup_derivations (
  -- The network and the descriptor's text as configured: another descriptor starts at index 0.
  descriptor   text PRIMARY KEY,
  next_index   bigint NOT NULL DEFAULT 0 CHECK (next_index >= 0)
);

-- Statuses: open (nothing seen), pending (a payment seen, not yet deep enough or not enough),
-- paid (credited), expired (nothing paid in time), underpaid (less than asked, in time), late
-- (paid after expiry), settled (credited by an operator's hand). Only paid and settled credited.
CREATE TABLE topup_invoices (
  id                text PRIMARY KEY,
  account_id        bigint NOT NULL REFERENCES accounts(id),
  network           text NOT NULL,
  descriptor        text NOT NULL,
  derivation_index  bigint NOT NULL,
  -- Filled in the same transaction as the row, once the index is known (derived in the process).
  address           text,
  script_hex        text,
  sats              bigint NOT NULL CHECK (sats > 0),
  credits           bigint NOT NULL CHECK (credits > 0),
  created_at        timestamptz NOT NULL DEFAULT now(),
  expires_at        timestamptz NOT NULL,
  status            text NOT NULL DEFAULT 'open'
    CHECK (status IN ('open', 'pending', 'paid', 'expired', 'underpaid', 'late', 'settled')),
  -- What the watcher last saw paid to the address: in time, in all, and confirmed deep enough.
  seen_sats         bigint NOT NULL DEFAULT 0,
  confirmed_sats    bigint NOT NULL DEFAULT 0,
  checked_at        timestamptz,
  paid_at           timestamptz,
  settled_by        text,
  settle_note       text,
  UNIQUE (descriptor, derivation_index)
);
CREATE UNIQUE INDEX topup_invoices_address ON topup_invoices(network, address);
CREATE INDEX topup_invoices_account ON topup_invoices(account_id, created_at DESC);
CREATE INDEX topup_invoices_watched ON topup_invoices(network)
  WHERE status IN ('open', 'pending', 'expired', 'underpaid', 'late');

-- Every transaction seen paying an invoice's address: first seen (mempool or block), where it is
-- now (null height: in the mempool), and whether it came in time.
CREATE TABLE topup_payments (
  invoice_id   text NOT NULL REFERENCES topup_invoices(id),
  txid         text NOT NULL,
  sats         bigint NOT NULL CHECK (sats >= 0),
  height       integer,
  first_seen   timestamptz NOT NULL DEFAULT now(),
  in_time      boolean NOT NULL,
  -- Set when the transaction left the address's history (a reorganisation, a replacement).
  gone_at      timestamptz,
  PRIMARY KEY (invoice_id, txid)
);

-- The one credit of an invoice: its primary key is what makes crediting exactly once, whatever
-- processes, restarts or repeated checks race for it.
CREATE TABLE topup_credits (
  invoice_id   text PRIMARY KEY REFERENCES topup_invoices(id),
  entry_id     bigint NOT NULL REFERENCES ledger_entries(id),
  txid         text,
  credits      bigint NOT NULL CHECK (credits > 0),
  at           timestamptz NOT NULL DEFAULT now()
);

-- An account's low-balance threshold: below it, its owner is warned (a `credits.low` webhook event
-- and the dashboard's banner). Null: no warning. low_warned_at: when the balance last went under
-- it (one warning per crossing), cleared once it is back at or over it.
ALTER TABLE accounts ADD COLUMN low_balance_cc bigint CHECK (low_balance_cc > 0);
ALTER TABLE accounts ADD COLUMN low_warned_at timestamptz;
CREATE INDEX accounts_low_balance ON accounts(id) WHERE low_balance_cc IS NOT NULL;
