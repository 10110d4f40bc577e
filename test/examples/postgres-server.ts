/**
 * A real PostgreSQL server for the example's tests, started and stopped by the tests the way
 * test/static/s3-server.ts starts moto: Debian's `postgresql` package (.ci/run installs it),
 * its binaries under /usr/lib/postgresql/<version>/bin, a new cluster in a temporary folder,
 * listening on 127.0.0.1 on a free port with its socket in that folder. PostgreSQL refuses to
 * run as root, which CI is: then the cluster belongs to the `postgres` user and every command
 * runs as that user through `runuser`.
 */
import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

export interface PostgresTestServer {
  version: string;
  port: number;
  /** Creates an empty database and returns its URL. */
  createDatabase(name: string): Promise<string>;
  stop(): Promise<void>;
}

/** The newest installed server's bin folder, or undefined. */
function findBin(): string | undefined {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return undefined;
  const versions = readdirSync(base)
    .filter((version) => existsSync(join(base, version, 'bin', 'postgres')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(base, versions[0], 'bin');
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/**
 * Starts a server, or returns why it could not, for the caller to skip with; in CI
 * (`CI=true`) that is a failure instead, thrown here.
 */
export async function startPostgres(): Promise<PostgresTestServer | string> {
  const started = await tryStart();
  if (typeof started === 'string' && process.env.CI === 'true') throw new Error(started);
  return started;
}

async function tryStart(): Promise<PostgresTestServer | string> {
  const bin = findBin();
  if (bin === undefined) {
    return 'PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/postgres; apt-get install postgresql)';
  }
  const root = process.getuid?.() === 0;
  let owner: { uid: number; gid: number } | undefined;
  if (root) {
    try {
      const uid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
      const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
      owner = { uid, gid };
    } catch {
      return 'running as root and there is no postgres user to run PostgreSQL as';
    }
  }
  /** Runs a PostgreSQL program, as the postgres user when we are root. */
  const pgRun = (program: string, args: string[]) =>
    root
      ? run('runuser', ['-u', 'postgres', '--', join(bin, program), ...args])
      : run(join(bin, program), args);

  const dir = mkdtempSync(join(tmpdir(), 'restmachine-postgres-'));
  if (owner !== undefined) chownSync(dir, owner.uid, owner.gid);
  const data = join(dir, 'data');
  const port = await freePort();
  try {
    await pgRun('initdb', [
      '-D',
      data,
      '-U',
      'postgres',
      '-A',
      'trust',
      '-E',
      'UTF8',
      '--locale=C',
      '--no-sync',
    ]);
    await pgRun('pg_ctl', [
      'start',
      '-D',
      data,
      '-w',
      '-t',
      '60',
      '-l',
      join(dir, 'server.log'),
      '-o',
      `-h 127.0.0.1 -p ${port} -k ${dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off`,
    ]);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    const failure = error as { stderr?: string; message: string };
    return `PostgreSQL (${bin}) did not start: ${failure.stderr?.trim() || failure.message}`;
  }

  const admin = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    version: bin.split('/').at(-2) ?? '',
    port,
    async createDatabase(name) {
      const client = new pg.Client({ connectionString: admin });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE "${name.replaceAll('"', '')}"`);
      } finally {
        await client.end();
      }
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    async stop() {
      try {
        await pgRun('pg_ctl', ['stop', '-D', data, '-m', 'fast', '-w']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
