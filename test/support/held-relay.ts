import { connect, createServer, type Server, type Socket } from "node:net";

/**
 * A TCP relay in front of a server (Redis) that passes what clients send at once and keeps the
 * server's replies while `holding`: a test sees what a client sends while it waits for answers.
 * `sent` is everything the clients sent, as text.
 */
export interface HeldRelay {
  url: string;
  holding: boolean;
  sent(): string;
  /** Passes on the replies kept, and every later one at once. */
  release(): void;
  close(): Promise<void>;
}

export async function startHeldRelay(target: string): Promise<HeldRelay> {
  const { hostname, port } = new URL(target);
  const chunks: Buffer[] = [];
  const kept: { to: Socket; data: Buffer }[] = [];
  const sockets = new Set<Socket>();
  const relay: HeldRelay & { server?: Server } = {
    url: "",
    holding: false,
    sent: () => Buffer.concat(chunks).toString("latin1"),
    release() {
      relay.holding = false;
      for (const { to, data } of kept.splice(0)) to.write(data);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        relay.server?.close(() => resolve());
      }),
  };
  const server = createServer((client) => {
    const upstream = connect(Number(port), hostname);
    sockets.add(client).add(upstream);
    client.on("data", (data: Buffer) => {
      chunks.push(data);
      upstream.write(data);
    });
    upstream.on("data", (data: Buffer) => {
      if (relay.holding) kept.push({ to: client, data });
      else client.write(data);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("close", end).on("error", end);
    upstream.on("close", end).on("error", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  relay.server = server;
  const { port: at } = server.address() as { port: number };
  relay.url = `redis://127.0.0.1:${at}`;
  return relay;
}
