import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate as drizzleMigrate } from 'drizzle-orm/postgres-js/migrator';

/** `db/migrations`, found from this file so the caller's working directory does not matter. */
export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../migrations', import.meta.url));

/** An arbitrary constant: concurrent migrations of one database wait for each other on this lock. */
const MIGRATION_LOCK = 4_711_001;

/**
 * Applies every pending migration of `db/migrations` to the database at `url` (idempotent).
 * Works against PostgreSQL 15+ (a server or the embedded one). One connection is used, so the
 * advisory lock and the migrations share a session.
 */
export async function migrate(url: string): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {}, connection: { application_name: 'cairn-migrate' } });
  try {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK})`;
    try {
      await drizzleMigrate(drizzle(sql), { migrationsFolder: MIGRATIONS_FOLDER });
    } finally {
      await sql`select pg_advisory_unlock(${MIGRATION_LOCK})`;
    }
  } finally {
    await sql.end({ timeout: 5 });
  }
}
