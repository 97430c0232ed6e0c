-- migration: expand
-- Scoped tokens: what a token may call (backends, networks, methods), from where (browser origins,
-- client address ranges), and until when. NULL scope: unrestricted; NULL expires_at: no expiry.
-- Rotation sets the old token's expires_at to the end of its grace period.
ALTER TABLE tokens ADD COLUMN scope jsonb;
ALTER TABLE tokens ADD COLUMN expires_at timestamptz;
