/**
 * How the example's database refuses what it cannot use, quickly and saying why: a PostgreSQL
 * address that never answers, a DATABASE_URL that is not a PostgreSQL URL, and an embedded
 * database folder that is a file, holds something else, or is in use by another instance.
 */
import { createServer, type Server, type Socket } from 'node:net';
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
