// Built by `npm run build` from src/ (scripts/build.mjs); do not edit.

// src/admin/operator-token.ts
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
var OPERATOR_TOKEN_PREFIX = "bgo_";
var OPERATOR_TOKEN_RE = /^bgo_[A-Za-z0-9_-]{43}$/;
var TOKEN_BYTES = 32;
function issueOperatorToken() {
  const token = OPERATOR_TOKEN_PREFIX + randomBytes(TOKEN_BYTES).toString("base64url");
  return { token, sha256: createHash("sha256").update(token, "utf8").digest("hex") };
}
function bearerToken(header) {
  const match = /^Bearer +([A-Za-z0-9._~+/-]+=*) *$/i.exec(header ?? "");
  return match ? match[1] : null;
}
function operatorAuthorized(header, digestsHex) {
  const token = bearerToken(header);
  const given = createHash("sha256").update(token ?? "", "utf8").digest();
  let match = false;
  for (const hex of digestsHex) {
    const expected = Buffer.from(hex, "hex");
    if (expected.length === given.length && timingSafeEqual(given, expected)) match = true;
  }
  return match && token !== null && OPERATOR_TOKEN_RE.test(token);
}

export {
  issueOperatorToken,
  operatorAuthorized
};
