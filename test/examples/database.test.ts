/**
 * How the example's database refuses what it cannot use, quickly and saying why: a PostgreSQL
 * address that never answers, a DATABASE_URL that is not a PostgreSQL URL, and an embedded
 * database folder that is a file, holds something else, or is in use by another instance.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../examples/app/database.js';

describe('a PostgreSQL server that accepts the connection and never answers', () => {
  let server: Server;
  const sockets = new Set<Socket>();
  beforeAll(async () => {
    server = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => {});
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  it('fails to open within seconds, naming the connection timeout', async () => {
    const address = server.address() as { port: number };
    const started = Date.now();
    await expect(
      openDatabase({ url: `postgres://postgres@127.0.0.1:${address.port}/bookmarks` }),
    ).rejects.toThrow(/Cannot connect to PostgreSQL: no answer within the 5 s connection timeout/);
    expect(Date.now() - started).toBeLessThan(8_000);
  }, 15_000);
});

describe('a DATABASE_URL that is not a PostgreSQL URL', () => {
  it.each([
    ['not a url', /it is not a URL/],
    ['mysql://user:secret@127.0.0.1:3306/bookmarks', /it is a mysql: URL/],
  ])('refuses %s, saying what is expected and not repeating it', async (url, reason) => {
    const opened = openDatabase({ url });
    await expect(opened).rejects.toThrow(
      /DATABASE_URL must be a postgres:\/\/ or postgresql:\/\/ URL/,
    );
    await expect(opened).rejects.toThrow(reason);
    await expect(opened).rejects.not.toThrow(/secret/);
  });
});

describe('the embedded database folder (BOOKMARKS_DATA_DIR)', () => {
  let directory: string;
  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'restmachine-data-folder-'));
  });
  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('is held by one instance: a second refuses to start until the first closes', async () => {
    const dataDir = join(directory, 'shared');
    const first = await openDatabase({ dataDir });
    try {
      await expect(openDatabase({ dataDir })).rejects.toThrow(
        new RegExp(`in use by process ${process.pid}.*one process per folder`),
      );
    } finally {
      await first.close();
    }
    expect(existsSync(join(dataDir, 'bookmarks.lock'))).toBe(false);
    const second = await openDatabase({ dataDir });
    await second.close();
  }, 120_000);

  it('takes over the lock of a process that is gone', async () => {
    const dataDir = join(directory, 'stale');
    const gone = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], {
      encoding: 'utf8',
    });
    await mkdir(dataDir);
    await writeFile(join(dataDir, 'bookmarks.lock'), gone.stdout);
    const database = await openDatabase({ dataDir });
    expect(readFileSync(join(dataDir, 'bookmarks.lock'), 'utf8')).toBe(`${process.pid}\n`);
    await database.close();
  }, 120_000);

  it('refuses a file, naming it, rather than failing with [object Object]', async () => {
    const dataDir = join(directory, 'a-file');
    await writeFile(dataDir, 'hello');
    const opened = openDatabase({ dataDir });
    await expect(opened).rejects.toThrow(`BOOKMARKS_DATA_DIR ${dataDir} is a file, not a folder`);
  });

  it('wraps what PGlite rejects with, naming the folder, and gives the folder back', async () => {
    // PostgreSQL's mark of a data directory with nothing else: PGlite tries, and fails.
    const dataDir = join(directory, 'broken');
    await mkdir(dataDir);
    await writeFile(join(dataDir, 'PG_VERSION'), 'junk\n');
    await expect(openDatabase({ dataDir })).rejects.toThrow(
      `Cannot open the embedded database in ${dataDir}: `,
    );
    expect(existsSync(join(dataDir, 'bookmarks.lock'))).toBe(false);
  }, 60_000);

  it('refuses a folder holding something other than a PGlite database, and leaves it alone', async () => {
    const dataDir = join(directory, 'notes');
    await mkdir(dataDir);
    await writeFile(join(dataDir, 'readme.txt'), 'my notes');
    await expect(openDatabase({ dataDir })).rejects.toThrow(
      /is not empty and holds no PGlite database \(no PG_VERSION file\)/,
    );
    expect(readdirSync(dataDir)).toEqual(['readme.txt']);
  });
});
