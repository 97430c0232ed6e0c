import pg from "pg";
import type { Leadership } from "./database.ts";

/**
 * One role among the processes on a PostgreSQL database: whoever holds the session advisory lock
 * keyed by `key` (hashed to the lock's 64-bit id) leads. The lock lives as long as the session, on
 * a connection of its own: a leader that dies or loses its connection frees it at once, and the
 * others, trying again every `retryMs`, take it over.
 */
export function leadWithAdvisoryLock(
  connectionString: string,
  key: string,
  opts: { onChange(leader: boolean): void; retryMs: number },
): Leadership {
  let client: pg.Client | null = null;
  let leader = false;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let tried: (leader: boolean) => void = () => {};
  const firstTry = new Promise<boolean>((resolve) => {
    tried = resolve;
  });
  const become = (value: boolean) => {
    if (leader === value) return;
    leader = value;
    opts.onChange(value);
  };
  const later = () => {
    if (stopped) return;
    timer = setTimeout(() => void attempt(), opts.retryMs);
    timer.unref();
  };
  const drop = (c: pg.Client) => {
    if (client !== c) return;
    client = null;
    c.end().catch(() => {});
    become(false);
    later();
  };
  const attempt = async () => {
    timer = null;
    if (stopped) return;
    try {
      if (!client) {
        const c = new pg.Client({ connectionString });
        c.on("error", () => drop(c));
        c.on("end", () => drop(c));
        client = c;
        await c.connect();
      }
      const { rows } = await client.query<{ got: boolean }>(
        "SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS got",
        [key],
      );
      if (rows[0]?.got) become(true);
      else later();
    } catch {
      if (client) drop(client);
      else later();
    }
    tried(leader);
  };
  void attempt();
  return {
    leading: () => leader,
    firstTry,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      const c = client;
      client = null;
      become(false);
      await c?.end().catch(() => {});
    },
  };
}
