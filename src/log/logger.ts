import { type DestinationStream, type Logger, pino } from "pino";

/**
 * Structured JSON logs. We never pass a token to the logger (paths are logged with the token's
 * hint); the redaction list is the second guard, for fields a future change might add.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: "blockgate" },
      redact: {
        paths: [
          "token",
          "*.token",
          "authorization",
          "*.authorization",
          "headers.authorization",
          "url",
          "*.url",
        ],
        censor: "[redacted]",
      },
    },
    destination,
  );
}
