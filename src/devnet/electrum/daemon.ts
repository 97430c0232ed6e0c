import { setTimeout as sleep } from "node:timers/promises";
import { pyStrRepr } from "../../protocol/electrum/python-text.ts";
import type { Json } from "../../protocol/json/json.ts";
import type { RpcErrorObject } from "../../protocol/json/types.ts";
import type { BitcoinCoreClient } from "../../upstreams/bitcoin-core/client.ts";

/** bitcoind answered with an error object (electrumx/server/daemon.py DaemonError). */
export class DaemonError extends Error {
  constructor(readonly error: RpcErrorObject) {
    super(error.message);
  }

  /** repr(DaemonError(err)): how ElectrumX quotes it in `daemon error: …`. */
  pyRepr(): string {
    const { code, message } = this.error;
    return `DaemonError({'code': ${code}, 'message': ${pyStrRepr(message)}})`;
  }
}

const RPC_IN_WARMUP = -28;
const RPC_PARSE_ERROR = -32700;
const RETRY_FIRST_MS = 250;
const RETRY_MAX_MS = 4_000;

/**
 * ElectrumX's Daemon: calls bitcoind over HTTP JSON-RPC (here devnet's Core, through the gateway's
 * own Core client). As in ElectrumX, a daemon that cannot be reached — or that is warming up — is
 * retried with backoff (0.25 s doubling to 4 s) until it answers; only an error object from the
 * daemon ends the call, as a DaemonError. `signal` ends the waiting when the server shuts down.
 */
export class Daemon {
  calls = 0;

  constructor(private readonly client: BitcoinCoreClient) {}

  async request(method: string, params: Json[], signal: AbortSignal): Promise<Json> {
    let delay = RETRY_FIRST_MS;
    for (;;) {
      signal.throwIfAborted();
      this.calls += 1;
      const out = await this.client.batch([{ method, params }]);
      if (out.ok) {
        const answer = out.answers[0]!;
        if ("result" in answer) return answer.result;
        const code = answer.error.code;
        if (code !== RPC_IN_WARMUP && code !== RPC_PARSE_ERROR) throw new DaemonError(answer.error);
      }
      await sleep(delay, undefined, { signal });
      delay = Math.min(delay * 2, RETRY_MAX_MS);
    }
  }

  close(): Promise<void> {
    return this.client.close();
  }
}
