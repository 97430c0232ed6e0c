-- migration: expand
-- Dashboard sign-ins: a token is exchanged for a session cookie so it can leave the URL and the
-- browser history. Like tokens, sessions are stored only as a SHA-256 of the cookie value.
CREATE TABLE dashboard_sessions (
  id          bigserial PRIMARY KEY,
  hash        bytea NOT NULL UNIQUE,
  account_id  bigint NOT NULL REFERENCES accounts(id),
  token_id    bigint NOT NULL REFERENCES tokens(id),
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL
);
CREATE INDEX dashboard_sessions_expiry ON dashboard_sessions(expires_at);
