import { ConfigError, parseConfig } from "../../src/config/load.ts";

/** What parseConfig refuses in `input`, one line per problem; [] when it is valid. */
export function configProblems(input: unknown): string[] {
  try {
    parseConfig(input);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}
