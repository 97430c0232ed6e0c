-- migration: expand
-- error_code holds only codes of the gateway's closed list (src/errors/codes.ts); the upstream's
-- native code — Core's -5, an ElectrumX or Hasura code, or the JSON-RPC code the gateway answered
-- with when it refused a call as the upstream would (-32601, -8) — is kept here, beside it.
-- No CHECK on error_code: the list may grow, and old rows must stay valid.
ALTER TABLE audit_records ADD COLUMN upstream_code text;
