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

/**
 * Readable log lines for a person at a terminal (time, level, message, fields), on standard error
 * so that what the gateway prints for its user on standard output stays apart.
 */
export async function prettyDestination(colorize: boolean): Promise<DestinationStream> {
  const { default: pretty } = await import("pino-pretty");
  return pretty({
    destination: 2,
    colorize,
    translateTime: "SYS:HH:MM:ss",
    ignore: "pid,hostname,service",
    singleLine: true,
    // A person reads these at a terminal: written at once, never lost at exit.
    sync: true,
  });
}
