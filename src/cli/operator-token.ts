import { issueOperatorToken } from "../access/operator-token.ts";
import type { CommandOutput } from "./db-command.ts";

/**
 * `blockgate operator-token`: a fresh operator token and the config line that admits it. Nothing
 * is stored or read — not the database, not the config — so it works before anything is set up;
 * the token is printed once and only its digest goes into the file.
 */
export function runOperatorToken(json: boolean): CommandOutput {
  const { token, sha256 } = issueOperatorToken();
  const configLine = `operator: { tokenSha256: ["${sha256}"] }`;
  if (json) return { text: JSON.stringify({ token, sha256, configLine }, null, 2), code: 0 };
  return {
    text: [
      "operator token (shown once, store it now; send it as Authorization: Bearer <token>):",
      token,
      "",
      "add its SHA-256 to the config file (keep other digests listed to keep their tokens valid):",
      configLine,
    ].join("\n"),
    code: 0,
  };
}
