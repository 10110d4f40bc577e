/**
 * Over real HTTP on 127.0.0.1 with raw TCP clients: a streamed body that fails midway. What was
 * produced before the failure reaches the client (docs/streams.md), then the connection is cut
 * without the chunked body's last chunk, so the client still sees the body as incomplete
 * (RFC 9112 §7.1); a client that stops reading cannot keep the connection open after the failure.
 * And a multipart/byteranges body of a file that shrank is cut the same way instead of ending
 * short of its Content-Length on a kept-alive connection (RFC 9112 §6.3).
 */
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import type { ServeHandle } from '../../../src/adapters/node/index.js';
import { Response, RestApplication, sse } from '../../../src/index.js';
import { type LoggedLine, memoryLogger, rawExchange, sleep, start } from './helpers.js';

let handle: ServeHandle | undefined;
let directory: string | undefined;

afterEach(async () => {
  await handle?.close();
  handle = undefined;
  if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
  directory = undefined;
});

/** A chunked body split into its chunks' data, and whether its last chunk (`0\r\n\r\n`) came. */
function decodeChunked(body: Buffer): { data: Buffer; complete: boolean } {
  const parts: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const lineEnd = body.indexOf('\r\n', offset);
    if (lineEnd === -1) break;
    const size = Number.parseInt(body.subarray(offset, lineEnd).toString('latin1'), 16);
    if (size === 0) return { data: Buffer.concat(parts), complete: true };
    const start = lineEnd + 2;
    // A chunk cut short is not a chunk: a client cannot take its bytes as sent.
    if (start + size + 2 > body.length) break;
    parts.push(body.subarray(start, start + size));
    offset = start + size + 2;
  }
  return { data: Buffer.concat(parts), complete: false };
}

/** Splits a raw response into its head and (still chunk-encoded) body. */
function splitResponse(raw: Buffer): { head: string; body: Buffer } {
  const headEnd = raw.indexOf('\r\n\r\n');
  return {
    head: raw.subarray(0, headEnd).toString('latin1'),
    body: raw.subarray(headEnd + 4),
  };
}

function failures(lines: LoggedLine[]): LoggedLine[] {
  return lines.filter(
    (line) => line.level === 'error' && line.message === 'Response body stream failed',
  );
}

/**
 * A raw GET on a connection that reads nothing for `pauseMs`, then everything until the server
 * closes the connection (or `waitMs` passes: `closedByServer` is then false).
 */
function slowReader(
  port: number,
  request: string,
  pauseMs: number,
  waitMs = 5_000,
): Promise<{ raw: Buffer; closedByServer: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let closedByServer = true;
    const timer = setTimeout(() => {
      closedByServer = false;
      socket.destroy();
    }, waitMs);
    socket.pause();
    setTimeout(() => socket.resume(), pauseMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ECONNRESET') reject(error);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ raw: Buffer.concat(chunks), closedByServer });
    });
    socket.write(request);
  });
}

const GET = (path: string) =>
  `GET ${path} HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n`;

describe('a stream body that fails midway', () => {
  it('delivers the events produced just before the failure, then cuts the connection', async () => {
    const { lines, logger } = memoryLogger();
    const app = new RestApplication({ logger });
    app.get('/events', () =>
      sse(
        (async function* () {
          // A replay since Last-Event-ID: fully produced, then the source fails at once.
          yield { id: '1', data: 'one' };
          yield { id: '2', data: 'two' };
          yield { id: '3', data: 'three' };
          throw new Error('feed lost');
        })(),
      ),
    );
    handle = await start(app);
    // The server closes the connection as soon as the client has everything, long before the
    // grace a client that does not read is given.
    const { raw, closedByServer } = await slowReader(handle.port, GET('/events'), 0, 800);
    expect(closedByServer).toBe(true);
    const { head, body } = splitResponse(raw);
    expect(head).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(head.toLowerCase()).toContain('transfer-encoding: chunked');
    const decoded = decodeChunked(body);
    expect(decoded.data.toString()).toBe(
      'id: 1\ndata: one\n\nid: 2\ndata: two\n\nid: 3\ndata: three\n\n',
    );
    // Without its last chunk the body is incomplete: the client must not take it as whole.
    expect(decoded.complete).toBe(false);
    const [failure, ...more] = failures(lines);
    expect(more).toHaveLength(0);
    expect(failure?.fields?.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect((failure?.fields?.error as Error | undefined)?.message).toBe('feed lost');
  });

  it('delivers the text chunks produced just before the failure, without a last chunk', async () => {
    const { lines, logger } = memoryLogger();
    const app = new RestApplication({ logger });
    app.get(
      '/text',
      () =>
        new Response(
          200,
          (async function* () {
            yield 'hello\n';
            yield new TextEncoder().encode('world\n');
            throw new Error('boom');
          })(),
          { contentType: 'text/plain' },
        ),
    );
    handle = await start(app);
    const raw = Buffer.from(await rawExchange(handle.port, GET('/text')), 'latin1');
    const decoded = decodeChunked(splitResponse(raw).body);
    expect(decoded.data.toString()).toBe('hello\nworld\n');
    expect(decoded.complete).toBe(false);
    expect(failures(lines)).toHaveLength(1);
  });

  it('flushes what is still buffered for a client that reads slowly', async () => {
    const { lines, logger } = memoryLogger();
    const app = new RestApplication({ logger });
    // Small chunks, so that several are waiting in the server's buffers when the source fails.
    const chunk = Buffer.alloc(1024, 'a');
    const count = 4096; // 4 MiB: more than the connection holds while the client pauses
    app.get(
      '/bulk',
      () =>
        new Response(
          200,
          (async function* () {
            for (let i = 0; i < count; i++) yield chunk;
            yield 'last words';
            throw new Error('source failed');
          })(),
          { contentType: 'application/octet-stream' },
        ),
    );
    handle = await start(app);
    const { raw, closedByServer } = await slowReader(handle.port, GET('/bulk'), 300);
    expect(closedByServer).toBe(true);
    const decoded = decodeChunked(splitResponse(raw).body);
    expect(decoded.data.length).toBe(count * chunk.length + 'last words'.length);
    expect(decoded.data.subarray(-10).toString()).toBe('last words');
    expect(decoded.complete).toBe(false);
    expect(failures(lines)).toHaveLength(1);
  });

  it('delivers the chunks of a pipelined response that failed while waiting its turn', async () => {
    const { logger } = memoryLogger();
    const app = new RestApplication({ logger });
    let failed: (() => void) | undefined;
    const failure = new Promise<void>((resolve) => {
      failed = resolve;
    });
    app.get(
      '/first',
      () =>
        new Response(
          200,
          (async function* () {
            yield 'first ';
            await failure; // the second response fails while this one still holds the connection
            yield 'done';
          })(),
          { contentType: 'text/plain' },
        ),
    );
    app.get(
      '/second',
      () =>
        new Response(
          200,
          (async function* () {
            try {
              yield 'queued';
              throw new Error('boom');
            } finally {
              setTimeout(() => failed?.(), 20);
            }
          })(),
          { contentType: 'text/plain' },
        ),
    );
    handle = await start(app);
    const raw = Buffer.from(
      await rawExchange(
        handle.port,
        'GET /first HTTP/1.1\r\nHost: x\r\n\r\nGET /second HTTP/1.1\r\nHost: x\r\n\r\n',
      ),
      'latin1',
    );
    const second = raw.indexOf('HTTP/1.1 200', 1);
    const first = decodeChunked(splitResponse(raw.subarray(0, second)).body);
    expect(first).toEqual({ data: Buffer.from('first done'), complete: true });
    const cut = decodeChunked(splitResponse(raw.subarray(second)).body);
    expect(cut).toEqual({ data: Buffer.from('queued'), complete: false });
  });

  it('does not let a client that stops reading keep the connection after a failure', async () => {
    const { logger } = memoryLogger();
    const app = new RestApplication({ logger });
    let failedAt = 0;
    app.get(
      '/stalled',
      () =>
        new Response(
          200,
          (async function* () {
            yield Buffer.alloc(256 * 1024, 'b');
            failedAt = Date.now();
            throw new Error('source failed');
          })(),
          { contentType: 'application/octet-stream' },
        ),
    );
    handle = await start(app);
    const closed = new Promise<number>((resolve) => {
      handle?.server.once('connection', (socket: Socket) =>
        socket.once('close', () => resolve(Date.now())),
      );
    });
    // The client never reads: neither the bytes nor the end of the connection.
    const client = connect(handle.port, '127.0.0.1');
    client.pause();
    client.on('error', () => undefined);
    client.write(GET('/stalled'));
    const closedAt = await Promise.race([closed, sleep(5_000).then(() => -1)]);
    client.destroy();
    expect(closedAt).not.toBe(-1);
    expect(closedAt - failedAt).toBeLessThan(3_000);
  });
});

describe('a multipart/byteranges body of a file that shrank', () => {
  it('is cut and logged, not ended short of its Content-Length on a kept-alive connection', async () => {
    directory = mkdtempSync(join(tmpdir(), 'restmachine-ranges-shrink-'));
    const path = join(directory, 'data.bin');
    writeFileSync(path, Buffer.alloc(100_000, 'z'));
    const { lines, logger } = memoryLogger();
    const app = new RestApplication({ logger });
    app.get('/data.bin', () => Response.file(path));
    // The file shrinks after the response (and its Content-Length) was decided, before the
    // adapter reads the parts.
    app.onResponse(() => truncateSync(path, 10));
    handle = await start(app, { keepAliveTimeout: 20_000 });
    const { raw, closedByServer } = await slowReader(
      handle.port,
      'GET /data.bin HTTP/1.1\r\nHost: x\r\nRange: bytes=0-99,50000-50099\r\n\r\n',
      0,
      3_000,
    );
    // The connection is not left open waiting for bytes that never come.
    expect(closedByServer).toBe(true);
    const { head, body } = splitResponse(raw);
    expect(head).toMatch(/^HTTP\/1\.1 206 /);
    const declared = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1]);
    expect(body.length).toBeLessThan(declared);
    const [failure] = failures(lines);
    expect((failure?.fields?.error as Error | undefined)?.message).toMatch(
      /ended after \d+ of the \d+ bytes/,
    );
  });
});

describe('a client that leaves while the source waits for its next chunk', () => {
  it('releases a Node stream source at once, without logging a failure', async () => {
    const { logger, lines } = memoryLogger();
    let released = false;
    const app = new RestApplication({ logger });
    app.get('/quiet', () => {
      // An upstream that sent one chunk and then has nothing more to say for a long time.
      const upstream = new Readable({ read: () => undefined });
      upstream.push('first\n');
      upstream.on('close', () => {
        released = true;
      });
      return new Response(200, upstream, { contentType: 'text/plain' });
    });
    handle = await start(app);
    const socket = connect(handle.port, '127.0.0.1');
    socket.write('GET /quiet HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((resolve) => socket.once('data', resolve));
    socket.destroy();
    for (let i = 0; i < 100 && !released; i++) await sleep(10);
    expect(released).toBe(true);
    expect(failures(lines)).toEqual([]);
  });
});

describe("a stream sent with its handler's own Content-Length", () => {
  async function* chunks(...parts: string[]): AsyncGenerator<string> {
    for (const part of parts) yield part;
  }

  function appWith(logger: ReturnType<typeof memoryLogger>['logger']): RestApplication {
    const app = new RestApplication({ logger });
    // 'héllo' is 5 characters and 6 bytes: the everyday String(text.length) mistake.
    app.get(
      '/greeting',
      () => new Response(200, chunks('héllo'), { headers: { 'Content-Length': '5' } }),
    );
    // A producer that writes past its length could forge the next response on the connection.
    app.get(
      '/forged',
      () =>
        new Response(
          200,
          chunks(
            'HELLO',
            'HTTP/1.1 200 OK\r\nContent-Length: 8\r\nX-Injected: yes\r\n\r\nsmuggled',
          ),
          { headers: { 'Content-Length': '5' } },
        ),
    );
    app.get(
      '/short',
      () => new Response(200, chunks('abc'), { headers: { 'Content-Length': '10' } }),
    );
    app.get(
      '/exact',
      () => new Response(200, chunks('ab', 'cd'), { headers: { 'Content-Length': '4' } }),
    );
    app.get(
      '/bogus',
      () => new Response(200, chunks('abc'), { headers: { 'Content-Length': 'abc' } }),
    );
    app.get('/next', () => 'next');
    return app;
  }

  it('never sends bytes past it: the connection is cut, the next request never answered by them', async () => {
    const { lines, logger } = memoryLogger();
    handle = await start(appWith(logger));
    const raw = await rawExchange(
      handle.port,
      'GET /forged HTTP/1.1\r\nHost: x\r\n\r\nGET /next HTTP/1.1\r\nHost: x\r\n\r\n',
    );
    expect(raw).not.toContain('X-Injected');
    expect(raw).not.toContain('smuggled');
    expect(raw.match(/HTTP\/1\.1 /g)).toHaveLength(1);
    const { head, body } = splitResponse(Buffer.from(raw, 'latin1'));
    expect(head).toMatch(/\r\ncontent-length: 5\r\n/i);
    // What was declared goes out; nothing after it.
    expect(body.toString('latin1')).toBe('HELLO');
    expect((failures(lines)[0]?.fields?.error as Error | undefined)?.message).toBe(
      'The response body is longer than the 5 bytes its Content-Length declared',
    );
    const greeting = await rawExchange(handle.port, 'GET /greeting HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(splitResponse(Buffer.from(greeting, 'latin1')).body.length).toBeLessThan(5);
  });

  it('is cut when it ends short of it, so a kept-alive client does not wait', async () => {
    const { lines, logger } = memoryLogger();
    handle = await start(appWith(logger), { keepAliveTimeout: 20_000 });
    const started = Date.now();
    const raw = await rawExchange(handle.port, 'GET /short HTTP/1.1\r\nHost: x\r\n\r\n', 10_000);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(splitResponse(Buffer.from(raw, 'latin1')).body.toString()).toBe('abc');
    expect((failures(lines)[0]?.fields?.error as Error | undefined)?.message).toBe(
      'The response body ended after 3 of the 10 bytes its Content-Length declared',
    );
  });

  it('is sent as it is when it keeps to it; a length that is no number is dropped', async () => {
    const { lines, logger } = memoryLogger();
    handle = await start(appWith(logger));
    const exact = await rawExchange(
      handle.port,
      'GET /exact HTTP/1.1\r\nHost: x\r\n\r\nGET /next HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
    );
    expect(exact).toContain('\r\n\r\nabcdHTTP/1.1 200 ');
    expect(exact.endsWith('next')).toBe(true);
    const bogus = await rawExchange(
      handle.port,
      'GET /bogus HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
    );
    const { head, body } = splitResponse(Buffer.from(bogus, 'latin1'));
    expect(head).not.toMatch(/content-length/i);
    expect(head).toMatch(/transfer-encoding: chunked/i);
    expect(decodeChunked(body)).toEqual({ data: Buffer.from('abc'), complete: true });
    expect(failures(lines)).toEqual([]);
  });
});
