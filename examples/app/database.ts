/**
 * The bookmarks database: PostgreSQL when a connection URL is given (`DATABASE_URL`), otherwise
 * PGlite, the same PostgreSQL built to WebAssembly and run inside the process, so `npm start`
 * needs no database server. Both speak the same SQL, so one set of queries and migrations
 * serves both. Each driver is imported only when it is chosen: a Lambda function on PostgreSQL
 * never loads PGlite.
 */

import type { PGlite as PGliteDatabase } from '@electric-sql/pglite';
import { lockDataFolder } from './data-folder.js';

/** Runs one parameterized statement ($1, $2, ...) and returns its rows. */
export type Query = <Row>(sql: string, params?: readonly unknown[]) => Promise<Row[]>;

export interface Database {
  /** `postgresql` for a server, `embedded` for PGlite. */
  readonly kind: 'postgresql' | 'embedded';
  readonly query: Query;
  /** Runs `work` in one transaction on one connection: committed when it resolves. */
  transaction<T>(work: (query: Query) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** A `postgres://` URL; absent or empty, the embedded database. */
  url?: string | undefined;
  /** Where the embedded database keeps its files; absent, it lives in memory. */
  dataDir?: string | undefined;
}

export async function openDatabase(options: DatabaseOptions = {}): Promise<Database> {
  if (options.url !== undefined && options.url !== '') return openPostgres(options.url);
  return openEmbedded(options.dataDir);
}

/**
 * How long a connection may take to be made, and a statement to run. Without them a server that
 * accepts the connection and never answers (a hung server, a firewall dropping packets) makes
 * startup wait forever, and on Lambda each event runs into the function's timeout (29 s in
 * template.yaml) instead of failing. The bookmarks' statements take milliseconds; 10 s leaves
 * room for a migration waiting its turn behind another instance's.
 */
const CONNECT_TIMEOUT_MS = 5_000;
const STATEMENT_TIMEOUT_MS = 10_000;

/**
 * Refuses a value `pg` would misread: it takes `not a url` as a host named `base` and a
 * `mysql://` URL as a PostgreSQL one, and fails later with a message that does not point at
 * DATABASE_URL. The value itself is not repeated, since it may hold a password.
 */
function checkPostgresUrl(url: string): void {
  const expected =
    'DATABASE_URL must be a postgres:// or postgresql:// URL, such as postgres://user:password@host:5432/database';
  let scheme: string;
  try {
    scheme = new URL(url).protocol;
  } catch {
    throw new Error(`${expected}; it is not a URL`);
  }
  if (scheme !== 'postgres:' && scheme !== 'postgresql:') {
    throw new Error(`${expected}; it is a ${scheme} URL`);
  }
}

async function openPostgres(url: string): Promise<Database> {
  checkPostgresUrl(url);
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    // The server cancels a statement running longer (statement_timeout); the client gives up
    // on a server that stopped answering altogether a little later (query_timeout).
    statement_timeout: STATEMENT_TIMEOUT_MS,
    query_timeout: STATEMENT_TIMEOUT_MS + CONNECT_TIMEOUT_MS,
  });
  // An idle connection that the server drops must not crash the process.
  pool.on('error', () => {});
  const query: Query = async (sql, params) =>
    (await pool.query(sql, params as unknown[] | undefined)).rows;
  try {
    await query('SELECT 1');
  } catch (error) {
    await pool.end();
    const message = (error as Error).message;
    throw new Error(
      /connection timeout/.test(message)
        ? `Cannot connect to PostgreSQL: no answer within the ${CONNECT_TIMEOUT_MS / 1000} s connection timeout (is a PostgreSQL server listening at that address?)`
        : `Cannot connect to PostgreSQL: ${message}`,
    );
  }
  return {
    kind: 'postgresql',
    query,
    async transaction(work) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await work(
          async (sql, params) => (await client.query(sql, params as unknown[] | undefined)).rows,
        );
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}

async function openEmbedded(dataDir: string | undefined): Promise<Database> {
  const { PGlite } = await import('@electric-sql/pglite');
  if (dataDir === undefined || dataDir === '') return embedded(await PGlite.create());
  const unlock = lockDataFolder(dataDir);
  let db: PGliteDatabase;
  try {
    db = await PGlite.create(dataDir);
  } catch (error) {
    unlock();
    throw new Error(`Cannot open the embedded database in ${dataDir}: ${describeFailure(error)}`);
  }
  const database = embedded(db);
  return {
    ...database,
    async close() {
      try {
        await database.close();
      } finally {
        unlock();
      }
    },
  };
}

/** PGlite rejects with Emscripten's ErrnoError, which is not an Error: name it and its errno. */
function describeFailure(error: unknown): string {
  if (error instanceof Error) return error.message;
  const { name, errno } = (error ?? {}) as { name?: unknown; errno?: unknown };
  if (name !== undefined || errno !== undefined) return `${String(name)} (errno ${String(errno)})`;
  return String(error);
}

function embedded(db: PGliteDatabase): Database {
  return {
    kind: 'embedded',
    query: async <Row>(sql: string, params?: readonly unknown[]) =>
      (await db.query<Row>(sql, params as unknown[] | undefined)).rows,
    transaction: (work) =>
      db.transaction((tx) =>
        work(
          async <Row>(sql: string, params?: readonly unknown[]) =>
            (await tx.query<Row>(sql, params as unknown[] | undefined)).rows,
        ),
      ),
    close: () => db.close(),
  };
}
