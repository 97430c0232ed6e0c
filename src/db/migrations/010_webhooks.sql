-- migration: expand
-- Webhooks: an endpoint is a subscription held by a token (like a GraphQL subscription): the
-- token's account is charged for each successful delivery, and the token's revocation or expiry
-- ends it. `source` names what it follows (an event name and its arguments). The signing secret
-- must be kept to sign (an HMAC key, not a credential of ours): it is shown once, at creation.
CREATE TABLE webhook_endpoints (
  id           bigserial PRIMARY KEY,
  account_id   bigint NOT NULL REFERENCES accounts(id),
  token_id     bigint NOT NULL REFERENCES tokens(id),
  network      text NOT NULL,
  url          text NOT NULL,
  event        text NOT NULL,
  args         jsonb NOT NULL DEFAULT '{}',
  secret       text NOT NULL,
  description  text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  -- Set when it stops: deleted, its token gone, or it completed (transactionConfirmations' until).
  ended_at     timestamptz,
  ended_why    text
);
CREATE INDEX webhook_endpoints_live ON webhook_endpoints(network) WHERE ended_at IS NULL;
CREATE INDEX webhook_endpoints_account ON webhook_endpoints(account_id);

-- One message per endpoint and chain event (the unique key makes a second announcement of the
-- same event a no-op); its id is the Standard Webhooks `webhook-id`, the same on every attempt.
CREATE TABLE webhook_messages (
  id            text PRIMARY KEY,
  endpoint_id   bigint NOT NULL REFERENCES webhook_endpoints(id),
  event_id      text NOT NULL,
  payload       text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  status        text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts      integer NOT NULL DEFAULT 0,
  finished_at   timestamptz,
  audit_id      bigint REFERENCES audit_records(id),
  UNIQUE (endpoint_id, event_id)
);
CREATE INDEX webhook_messages_endpoint ON webhook_messages(endpoint_id, created_at DESC);

-- Every attempt, as the dashboard shows it: when, how long, and what the endpoint answered.
CREATE TABLE webhook_attempts (
  id            bigserial PRIMARY KEY,
  message_id    text NOT NULL REFERENCES webhook_messages(id),
  attempt       integer NOT NULL,
  at            timestamptz NOT NULL DEFAULT now(),
  http_status   integer,
  error         text,
  latency_ms    integer NOT NULL,
  -- What became of it: delivered (2xx, charged), retry (another attempt is queued), failed
  -- (no more attempts), refused (not sent: the balance, the token or the target refused it).
  result        text NOT NULL CHECK (result IN ('delivered', 'retry', 'failed', 'refused'))
);
CREATE INDEX webhook_attempts_message ON webhook_attempts(message_id, attempt);
