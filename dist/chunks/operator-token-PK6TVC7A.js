// Built by `npm run build` from src/ (scripts/build.mjs); do not edit.
import {
  issueOperatorToken
} from "./chunk-LLDYJS6Y.js";

// src/cli/operator-token.ts
function runOperatorToken(args) {
  if (args.length > 0) return { text: "usage: blockgate operator-token", code: 2 };
  const { token, sha256 } = issueOperatorToken();
  return {
    text: [
      "operator token (shown once, store it now; send it as Authorization: Bearer <token>):",
      token,
      "",
      "add its SHA-256 to the config file (keep other digests listed to keep their tokens valid):",
      `operator: { tokenSha256: ["${sha256}"] }`
    ].join("\n"),
    code: 0
  };
}
export {
  runOperatorToken
};
