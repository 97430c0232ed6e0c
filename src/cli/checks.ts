import { isTokenShaped } from "../access/tokens.ts";
import { NETWORK_NAMES } from "../config/schema.ts";
import { WEBHOOK_EVENTS } from "../webhooks/register.ts";
import { durationMs, expiryFrom, scopeFrom } from "./token-terms.ts";

/**
 * What is wrong with a value given on the command line, or null when it is fine. Checks need
 * nothing but the value: they run as the line is parsed, before any store is opened or a gateway
 * asked, in the CLI and again in the gateway that runs a handed-off command.
 */
export type Check = (value: string) => string | null;

const WHOLE = /^\d+$/;

/** A whole number from `least` to `most` (and within 2^53). */
export function wholeNumber(least: number, most = Number.MAX_SAFE_INTEGER, unit = ""): Check {
  const what =
    most === Number.MAX_SAFE_INTEGER
      ? least === 1
        ? "a positive whole number"
        : `a whole number of at least ${least}`
      : `a whole number from ${least} to ${most}`;
  return (value) => {
    const n = Number(value);
    if (WHOLE.test(value) && Number.isSafeInteger(n) && n >= least && n <= most) return null;
    return `${what}${unit && ` of ${unit}`}`;
  };
}

/** Worker processes: `auto` (one per core) or a whole number. */
export const workerCount: Check = (value) =>
  value === "auto" || wholeNumber(1, 1024)(value) === null
    ? null
    : "auto, or a whole number from 1 to 1024";

export const positive = (unit = "") => wholeNumber(1, Number.MAX_SAFE_INTEGER, unit);

/** A row's id, as `token list` and `webhook list` show it. */
export const anId: Check = (value) =>
  WHOLE.test(value) && Number.isSafeInteger(Number(value)) ? null : "an id, a whole number";

export const oneOf =
  (choices: readonly string[]): Check =>
  (value) =>
    choices.includes(value) ? null : `one of ${choices.join(", ")}`;

export const network = oneOf(NETWORK_NAMES);

/** Networks separated by commas, each named once (`--networks mainnet,regtest`). */
export const networkList: Check = (value) => {
  const names = value.split(",").map((s) => s.trim());
  if (names.some((n) => network(n) !== null)) {
    return `networks separated by commas, each one of ${NETWORK_NAMES.join(", ")}`;
  }
  return new Set(names).size === names.length ? null : "each network once";
};
export const webhookEvent = oneOf(WEBHOOK_EVENTS);

/** A comma-separated list of positive whole numbers (`--targets 1,6,144`). */
export const wholeNumbers: Check = (value) =>
  value.split(",").every((s) => WHOLE.test(s.trim()))
    ? null
    : "whole numbers separated by commas, such as 1,6,144";

export const duration: Check = (value) =>
  durationMs(value) === null ? "a duration such as 90s, 30m, 24h, 7d" : null;

export const expiry: Check = (value) =>
  expiryFrom(value) === null ? "a duration (30d, 12h) or a future ISO 8601 instant" : null;

export const accessToken: Check = (value) =>
  isTokenShaped(value) ? null : "an access token (bgt_…)";

export const tokenRef: Check = (value) =>
  anId(value) === null || isTokenShaped(value) ? null : "a token id or the token itself (bgt_…)";

/** One key of a token's scope, checked as the store checks it (`--networks mainnet,signet`). */
export const scopeKey =
  (key: "backends" | "networks" | "methods" | "origins" | "ips"): Check =>
  (value) => {
    const given = scopeFrom({ [key]: value });
    return "problem" in given ? given.problem.replace(/^--[\w.]+: /, "") : null;
  };
