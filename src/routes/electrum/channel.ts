/**
 * A client's Electrum session as a stream of messages, whatever carries them: WebSocket text
 * frames (electrum-socket.ts) or newline-delimited lines over TLS (electrum-lines.ts). The
 * session (electrum-session.ts) and its notifications (electrum-push.ts) are written once
 * against this.
 */
export interface MessageChannel {
  /** Each message the client sent: one JSON-RPC call or batch, as text. */
  onMessage(listener: (text: string) => void): void;
  onClose(listener: () => void): void;
  isOpen(): boolean;
  send(text: string): void;
  /**
   * Ends the session: `revoked` when the token is no longer valid (WebSocket 1008), `shutdown`
   * when the gateway drains (1001). What was sent before is delivered first.
   */
  close(reason: "revoked" | "shutdown"): void;
  /** Drops the connection at once (a fault in the session's own work). */
  terminate(): void;
}
