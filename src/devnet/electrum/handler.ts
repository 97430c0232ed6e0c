import type { Prevout } from "../../bitcoin/prevouts.ts";
import {
  checkBoundArgs,
  ELECTRUM_SIGNATURES,
  type ElectrumSignature,
} from "../../protocol/electrum/args.ts";
import { DAEMON_ERROR } from "../../protocol/electrum/params.ts";
import type { Json } from "../../protocol/json/json.ts";
import type { DevnetChain } from "../chain.ts";
import { type Daemon, DaemonError } from "./daemon.ts";
import { ElectrumRpcError } from "./rpc-error.ts";
import type { ScriptEntry } from "./script-index.ts";

/** What one connection remembers (ElectrumX's session attributes). */
export interface SessionState {
  svSeen: boolean;
  client: string;
  protocol: string | null;
  subscribedHeaders: boolean;
  /**
   * Script hashes subscribed to (blockchain.scripthash.subscribe), until unsubscribed, each with
   * the status the session was last told: a notification is sent only when it differs.
   */
  scripthashes: Map<string, string | null>;
  /** Aborted when the connection or the server closes: ends waits on the daemon. */
  signal: AbortSignal;
}

export interface Handler {
  /** aiorpcx's signature_info: parameter names, the required ones first. */
  required: readonly string[];
  optional: readonly string[];
  run(session: SessionState, args: (Json | undefined)[]): Promise<Json> | Json;
}

/** What the handlers read: the chain (ElectrumX's own database), the daemon, the script index. */
export interface ElectrumBackend {
  chain: DevnetChain;
  daemon: Daemon;
  scripts: (scripthash: string) => ScriptEntry;
  /** Outputs devnet knows were spent (its blocks, block 277647's shipped prevouts). */
  prevouts: (txid: string, vout: number) => Prevout | undefined;
  /** Where the server listens, for server.features. */
  address: () => { host: string; port: number };
}

/**
 * A handler with the shared signature and checks (src/protocol/electrum/args.ts): `run` gets the
 * arguments as the checks normalised them.
 */
export function checked(
  method: string,
  run: (session: SessionState, args: Json[]) => Promise<Json> | Json,
): Handler {
  const signature: ElectrumSignature = ELECTRUM_SIGNATURES[method]!;
  return {
    required: signature.required,
    optional: signature.optional,
    run(session, args) {
      const out = checkBoundArgs(signature, args);
      if (!out.ok) throw new ElectrumRpcError(out.error.code, out.error.message);
      return run(session, out.params);
    },
  };
}

/** session_mgr.daemon_request: a daemon error becomes code 2 `daemon error: DaemonError(…)`. */
export async function daemonRequest(
  daemon: Daemon,
  session: SessionState,
  method: string,
  params: Json[],
): Promise<Json> {
  try {
    return await daemon.request(method, params, session.signal);
  } catch (err) {
    if (err instanceof DaemonError) {
      throw new ElectrumRpcError(DAEMON_ERROR, `daemon error: ${err.pyRepr()}`);
    }
    throw err;
  }
}
