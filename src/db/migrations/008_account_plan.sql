-- migration: expand
-- The plan an account is on (config `plans.<name>`): its request rates, calls in flight and
-- credit caps. NULL: the configured default plan, if any.
ALTER TABLE accounts ADD COLUMN plan text;
