import { connect, type TLSSocket } from "node:tls";
import type { ElectrumSocket, ElectrumSocketEvents } from "@electrum-cash/network";
import { EventEmitter } from "eventemitter3";

/**
 * A TLS transport for @electrum-cash/network's client (its ElectrumSocket interface; the library
 * frames newline-delimited messages itself), dialing `host` and sending it as the TLS server name
 * (SNI), as Electrum's own asyncio transport and Java's SSLSocket do. It exists because no
 * Electrum client library on npm sends SNI: @mempool/electrum-client, its forks and
 * electrum-client call tls.connect without `servername` (node sends none then), and electrum-cash
 * 3 sets `serverName`, which node ignores. `address` is where the name resolves (the wildcard DNS
 * record a deployment publishes); the certificate is not verified, as wallets pin it instead.
 */
export class ElectrumTlsSocket
  extends EventEmitter<ElectrumSocketEvents>
  implements ElectrumSocket
{
  encrypted = true;
  timeout = 10_000;
  private socket: TLSSocket | undefined;

  constructor(
    public host: string,
    public port: number,
    private readonly address = "127.0.0.1",
  ) {
    super();
  }

  get hostIdentifier(): string {
    return `${this.host}:${this.port}`;
  }

  connect(): void {
    const socket = connect({
      host: this.address,
      port: this.port,
      servername: this.host,
      rejectUnauthorized: false,
    });
    this.socket = socket;
    socket.setEncoding("utf8");
    socket.once("secureConnect", () => this.emit("connected"));
    socket.on("data", (chunk: string) => this.emit("data", chunk));
    socket.on("error", (err) => this.emit("error", err));
    socket.once("close", () => this.emit("disconnected"));
  }

  disconnect(): void {
    this.socket?.destroy();
    this.socket = undefined;
  }

  write(data: Uint8Array | string, callback?: (err?: Error) => void): boolean {
    if (!this.socket) throw new Error("not connected");
    return this.socket.write(data, (err) => callback?.(err ?? undefined));
  }

  // The interface lists its events as members too (eventemitter3's typing).
  declare data: [string];
  declare connected: [];
  declare disconnected: [];
  declare error: [Error];
}
