// Fails loudly when DATABASE_URL does not answer: CI must exercise the PostgreSQL store.
import pg from "pg";

const client = new pg.Client({
  connectionString: process.env.DATABASE_URL,
  connectionTimeoutMillis: 5000,
});
try {
  await client.connect();
  const { rows } = await client.query("SELECT version()");
  console.log(`PostgreSQL: ${rows[0].version}`);
  await client.end();
} catch (err) {
  console.error(`PostgreSQL is unreachable at ${process.env.DATABASE_URL}: ${err.message}`);
  process.exit(1);
}
