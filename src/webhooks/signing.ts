import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";

/** A new endpoint's signing secret, as Standard Webhooks writes them: `whsec_` + base64 of 32 bytes. */
export function newSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

/**
 * The Standard Webhooks headers for one attempt at a message: its id (the same on every attempt,
 * for the receiver to drop a repeat), the attempt's time, and the signature over both and the body.
 */
export function signedHeaders(
  secret: string,
  messageId: string,
  body: string,
  at: Date,
): Record<string, string> {
  return {
    "webhook-id": messageId,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": new Webhook(secret).sign(messageId, at, body),
  };
}
