/**
 * The Node adapter over real loopback HTTP: request mapping, response writing, oversized and
 * malformed input, and clients that go away.
 */
import { Agent, request as httpRequest } from 'node:http';
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { ServeHandle } from '../../../src/adapters/node/index.js';
import { MultiValueHeaders, Response, RestApplication, silentLogger } from '../../../src/index.js';
import { memoryLogger, rawExchange, send, sleep, start } from './helpers.js';

const MiB = 1024 * 1024;
const log = memoryLogger();
const streamEvents: string[] = [];
// What the side-effecting route did: one entry per run.
const charges: string[] = [];

function buildApp() {
  const app = new RestApplication({ logger: log.logger, bodyLimit: 64 * 1024 }).validates(
    'filters',
    z.object({ tag: z.string() }).optional(),
  );
  app.get('/', () => ({ hello: 'world' }));
  app.get('/keep', () => ['kept?', 200, { Connection: 'keep-alive', 'Keep-Alive': 'timeout=60' }]);
  app.post('/search', ({ filters }) => ({ tag: filters?.tag ?? null }));
  app.get('/echo-request', ({ request, headers, cookies }) => ({
    method: request.method,
    path: request.path,
    query: request.queryString,
    multi: headers.getAll('x-multi'),
    cookies,
    remoteAddress: request.remoteAddress,
    protocol: request.protocol,
    tls: request.tls,
  }));
  app.post('/upload', async ({ request }) => ({ length: (await request.bytes()).length }));
  app.post('/ignore-body', () => ({ ignored: true }));
  app.get('/host', ({ headers }) => ({ host: headers.getAll('host') }));
  app.post('/charge', () => {
    charges.push('charged');
    return 'charged';
  });
  app.get('/cookies', () =>
    new Response(200, 'ok')
      .setCookie('a', '1', { path: '/' })
      .setCookie('b', '2, with a comma', { httpOnly: true })
      .setCookie('c', '3'),
  );
  app.get('/endless', () => {
    async function* endless() {
      try {
        streamEvents.push('started');
        const chunk = new Uint8Array(16 * 1024).fill(97);
        for (;;) {
          streamEvents.push('chunk');
          yield chunk;
        }
      } finally {
        streamEvents.push('finally');
      }
    }
    return new Response(200, endless(), { contentType: 'application/octet-stream' });
  });
  app.get('/endless-readable', () => {
    const chunk = Buffer.alloc(16 * 1024, 98);
    const readable = new Readable({
      read() {
        this.push(chunk);
      },
    });
    readable.on('close', () => streamEvents.push('readable closed'));
    return new Response(200, readable, { contentType: 'application/octet-stream' });
  });
  app.get('/broken-stream', () => {
    async function* broken() {
      yield 'first part, ';
      throw new Error('the source failed');
    }
    return new Response(200, broken(), { contentType: 'text/plain' });
  });
  app.get(
    '/unstartable-stream',
    () =>
      new Response(200, {
        [Symbol.asyncIterator](): AsyncIterator<string> {
          throw new Error('no cursor');
        },
      }),
  );
  app.get('/throws-at-once', () => {
    async function* noFirstRow() {
      yield* [];
      throw new Error('no first row');
    }
    return new Response(200, noFirstRow(), { contentType: 'text/plain' });
  });
  app.get('/strings-stream', () => {
    async function* words() {
      yield 'one ';
      yield new TextEncoder().encode('two ');
      yield 'three';
    }
    return new Response(200, words(), { contentType: 'text/plain' });
  });
  // A value Node refuses that reached it anyway: written with the library's own unchecked
  // setter, which the core keeps for values it made itself. The adapter's last defence.
  app.get('/bad-header', () => {
    const response = new Response(200, 'x');
    MultiValueHeaders.setTrusted(response.headers, 'X-Bell', 'x-bell', 'a\u0007b');
    return response;
  });
  // A character no octet can carry: the core refuses it, through the error path.
  app.get('/euro-header', () => new Response(200, 'x', { headers: { 'X-Euro': '€' } }));
  // A control character from the client's query, as a redirect to a path it names would carry.
  app.get('/control-header', ({ queryParams }) => ['x', 200, { 'X-Note': queryParams.note ?? '' }]);
  return app;
}

let server: ServeHandle;
const sockets: Socket[] = [];

beforeAll(async () => {
  server = await start(buildApp());
  server.server.on('connection', (socket: Socket) => sockets.push(socket));
});

afterAll(async () => {
  await server.close();
});

/** Uploads `total` bytes in 64 KiB writes until the server answers; never buffers it all. */
function upload(
  port: number,
  total: number,
  headers: Record<string, string>,
): Promise<{ status: number; body: string; sent: number; connection: string | undefined }> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/upload',
      headers: { 'content-type': 'application/octet-stream', ...headers },
      agent: false,
    });
    let sent = 0;
    let answered = false;
    const chunk = Buffer.alloc(64 * 1024, 120);
    const pump = (): void => {
      while (!answered && sent < total) {
        sent += chunk.length;
        if (!outgoing.write(chunk)) {
          outgoing.once('drain', pump);
          return;
        }
      }
      if (!answered) outgoing.end();
    };
    outgoing.on('response', (incoming) => {
      answered = true;
      const chunks: Buffer[] = [];
      incoming.on('data', (data: Buffer) => chunks.push(data));
      incoming.on('end', () =>
        resolve({
          status: incoming.statusCode ?? 0,
          body: Buffer.concat(chunks).toString(),
          sent,
          connection: incoming.headers.connection,
        }),
      );
    });
    // Once the server has answered and closed, further writes fail; that is expected.
    outgoing.on('error', (error) => {
      if (!answered) reject(error);
    });
    pump();
  });
}

describe('request mapping', () => {
  it('keeps repeated headers and cookies, the raw path and the raw query', async () => {
    const response = await send(server.port, {
      path: '//echo-request/?a=1&a=%2F&b',
      headers: { 'X-Multi': ['one', 'two'], Cookie: ['x=1', 'y=2'] },
    });
    expect(response.status).toBe(200);
    const body = JSON.parse(response.body.toString());
    expect(body).toMatchObject({
      method: 'GET',
      path: '//echo-request/',
      query: 'a=1&a=%2F&b',
      multi: ['one', 'two'],
      cookies: { x: '1', y: '2' },
      remoteAddress: '127.0.0.1',
      protocol: 'http',
      tls: false,
    });
  });

  it('routes an absolute-form request target by its path (RFC 9112 §3.2.2)', async () => {
    const reply = await rawExchange(
      server.port,
      'GET http://example.test/echo-request?x=1 HTTP/1.1\r\nHost: example.test\r\nConnection: close\r\n\r\n',
    );
    expect(reply).toMatch(/^HTTP\/1\.1 200 /);
    expect(reply).toContain('"path":"/echo-request"');
    expect(reply).toContain('"query":"x=1"');
  });

  it('gives the application the authority of an absolute-form target as its Host (RFC 9112 §3.2.2)', async () => {
    const ask = (target: string, host: string) =>
      rawExchange(
        server.port,
        `GET ${target} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
      );
    const other = await ask('http://tenant-a.example/host', 'tenant-b.example');
    expect(other).toMatch(/^HTTP\/1\.1 200 /);
    expect(other.endsWith('{"host":["tenant-a.example"]}')).toBe(true);
    expect(
      (await ask('HTTP://a.example:8080/host', 'b.example')).endsWith(
        '{"host":["a.example:8080"]}',
      ),
    ).toBe(true);
    // An authority that is no host (userinfo, RFC 9110 §4.2.4; an empty one, §4.2.1) is refused.
    expect(await ask('http://user@a.example/host', 'a.example')).toMatch(/^HTTP\/1\.1 400 /);
    expect(await ask('http:///host', 'a.example')).toMatch(/^HTTP\/1\.1 400 /);
  });

  it("says close, not a handler's keep-alive, when the connection closes after the response", async () => {
    for (const request of [
      'GET /keep HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
      'GET /keep HTTP/1.0\r\nHost: x\r\n\r\n',
    ]) {
      const reply = await rawExchange(server.port, request);
      expect(reply, request).toMatch(/^HTTP\/1\.1 200 /);
      expect(reply.toLowerCase(), request).toContain('\r\nconnection: close\r\n');
      expect(reply.toLowerCase(), request).not.toMatch(/\r\n(connection: keep-alive|keep-alive:)/);
    }
    // A connection kept open keeps the handler's fields.
    const kept = await fetch(`http://127.0.0.1:${server.port}/keep`);
    expect(kept.headers.get('connection')).toBe('keep-alive');
    expect(kept.headers.get('keep-alive')).toBe('timeout=60');
    await kept.text();
  });

  it('answers OPTIONS * for the server, and refuses * with any other method (RFC 9112 §3.2.4)', async () => {
    const options = await rawExchange(
      server.port,
      'OPTIONS * HTTP/1.1\r\nHost: example.test\r\nConnection: close\r\n\r\n',
    );
    expect(options).toMatch(/^HTTP\/1\.1 204 /);
    const get = await rawExchange(
      server.port,
      'GET * HTTP/1.1\r\nHost: example.test\r\nConnection: close\r\n\r\n',
    );
    expect(get).toMatch(/^HTTP\/1\.1 400 /);
    expect(get).toContain('The request target * is only for OPTIONS');
  });

  it('ignores X-Forwarded-* unless the proxy is trusted', async () => {
    const untrusted = await send(server.port, {
      path: '/echo-request',
      headers: { 'X-Forwarded-For': '203.0.113.9', 'X-Forwarded-Proto': 'https' },
    });
    expect(JSON.parse(untrusted.body.toString())).toMatchObject({
      remoteAddress: '127.0.0.1',
      protocol: 'http',
      tls: false,
    });
    const behindOne = await start(buildApp(), { trustProxy: 1 });
    const behindAll = await start(buildApp(), { trustProxy: true });
    try {
      const headers = {
        'X-Forwarded-For': ['198.51.100.7, 203.0.113.1', '192.0.2.44'],
        'X-Forwarded-Proto': 'https',
      };
      const one = await send(behindOne.port, { path: '/echo-request', headers });
      // One trusted hop: only the entry that proxy appended (the right-most) is believed.
      expect(JSON.parse(one.body.toString())).toMatchObject({
        remoteAddress: '192.0.2.44',
        protocol: 'https',
        tls: true,
      });
      const all = await send(behindAll.port, { path: '/echo-request', headers });
      expect(JSON.parse(all.body.toString())).toMatchObject({ remoteAddress: '198.51.100.7' });
      const bogusProto = await send(behindOne.port, {
        path: '/echo-request',
        headers: { 'X-Forwarded-Proto': 'javascript' },
      });
      expect(JSON.parse(bogusProto.body.toString())).toMatchObject({
        remoteAddress: '127.0.0.1',
        protocol: 'http',
      });
    } finally {
      await Promise.all([behindOne.close(), behindAll.close()]);
    }
  });

  it('answers a method Node parses but restmachine does not route with 501', async () => {
    const response = await send(server.port, { method: 'PROPFIND', path: '/' });
    expect(response.status).toBe(501);
  });

  it('keeps the connection alive across ordinary requests', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const before = sockets.length;
    try {
      for (let i = 0; i < 3; i++) {
        const response = await new Promise<{ status: number; connection?: string }>(
          (resolve, reject) => {
            const outgoing = httpRequest(
              {
                host: '127.0.0.1',
                port: server.port,
                method: 'POST',
                path: '/upload',
                agent,
                headers: { 'content-type': 'text/plain', 'content-length': '5' },
              },
              (incoming) => {
                incoming.resume();
                incoming.on('end', () =>
                  resolve({
                    status: incoming.statusCode ?? 0,
                    connection: incoming.headers.connection,
                  }),
                );
              },
            );
            outgoing.on('error', reject);
            outgoing.end('hello');
          },
        );
        expect(response.status).toBe(200);
        expect(response.connection).toBe('keep-alive');
      }
      const get = await new Promise<string | undefined>((resolve, reject) => {
        httpRequest({ host: '127.0.0.1', port: server.port, path: '/', agent }, (incoming) => {
          incoming.resume();
          incoming.on('end', () => resolve(incoming.headers.connection));
        })
          .on('error', reject)
          .end();
      });
      expect(get).toBe('keep-alive');
      expect(sockets.length - before).toBe(1);
    } finally {
      agent.destroy();
    }
  });
});

describe('a Cookie value sent as UTF-8 octets', () => {
  it('reaches cookies as the text a script set, as in process', async () => {
    const exchange = await rawExchange(
      server.port,
      Buffer.concat([
        Buffer.from('GET /echo-request HTTP/1.1\r\nHost: x\r\nConnection: close\r\nCookie: u='),
        Buffer.from('caf\u00e9 \u2603', 'utf8'),
        Buffer.from('; v=plain\r\n\r\n'),
      ]),
    );
    const body = Buffer.from(exchange.slice(exchange.indexOf('\r\n\r\n') + 4), 'latin1');
    expect(JSON.parse(body.toString('utf8')).cookies).toEqual({
      u: 'caf\u00e9 \u2603',
      v: 'plain',
    });
  });
});

describe('responses', () => {
  it('sends every Set-Cookie as its own header line, never joined', async () => {
    const response = await send(server.port, { path: '/cookies' });
    const lines: string[] = [];
    for (let i = 0; i < response.rawHeaders.length; i += 2) {
      if (response.rawHeaders[i]?.toLowerCase() === 'set-cookie') {
        lines.push(response.rawHeaders[i + 1] as string);
      }
    }
    expect(lines).toEqual(['a=1; Path=/', expect.stringMatching(/^b=2/), 'c=3']);
  });

  it('answers HEAD with the GET headers and not one byte of body', async () => {
    const get = await send(server.port, { path: '/' });
    const reply = await rawExchange(
      server.port,
      'HEAD / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n',
    );
    const [head, rest] = reply.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 200 /);
    expect(head).toContain(`content-length: ${get.headers['content-length']}`);
    expect(head).toContain('content-type: application/json');
    expect(rest).toBe('');
  });

  it('sends header names in lower case, those a handler sets included', async () => {
    const reply = await rawExchange(
      server.port,
      'GET /cookies HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n',
    );
    const names = reply
      .split('\r\n\r\n')[0]
      ?.split('\r\n')
      .slice(1)
      .map((line) => line.slice(0, line.indexOf(':')));
    // Node adds Date and Connection itself, in its own case.
    const ours = names?.filter((name) => name !== 'Date' && name !== 'Connection');
    expect(ours).toContain('set-cookie');
    expect(ours).toContain('x-request-id');
    for (const name of ours ?? []) expect(name).toBe(name.toLowerCase());
  });

  it('streams string and byte chunks of a generator', async () => {
    const response = await send(server.port, { path: '/strings-stream' });
    expect(response.body.toString()).toBe('one two three');
    expect(response.headers['transfer-encoding']).toBe('chunked');
  });

  it('cuts the connection when a stream fails midway, and logs the failure', async () => {
    const outcome = await new Promise<string>((resolve) => {
      const outgoing = httpRequest(
        { host: '127.0.0.1', port: server.port, path: '/broken-stream', agent: false },
        (incoming) => {
          incoming.on('data', () => undefined);
          incoming.on('end', () => resolve('ended normally'));
          incoming.on('error', (error) => resolve(`error: ${error.message}`));
          incoming.on('aborted', () => resolve('aborted'));
        },
      );
      outgoing.on('error', (error) => resolve(`error: ${error.message}`));
      outgoing.end();
    });
    // A truncated chunked body must not look complete to the client.
    expect(outcome).not.toBe('ended normally');
    const failed = log.lines.find((line) => line.message === 'Response body stream failed');
    expect(failed?.fields?.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers a whole 500 when a stream cannot start, and keeps serving', async () => {
    const response = await send(server.port, {
      path: '/unstartable-stream',
      headers: { 'X-Request-ID': 'trace-43' },
    });
    expect(response.status).toBe(500);
    expect(response.body.toString()).toBe('Internal Server Error');
    expect(response.headers['x-request-id']).toBe('trace-43');
    const refused = log.lines.find(
      (line) => line.message === 'Response could not be sent; answering 500',
    );
    expect(refused?.fields).toMatchObject({
      requestId: 'trace-43',
      error: { message: 'no cursor' },
    });
    expect((await send(server.port, { path: '/' })).status).toBe(200);
  });

  it('sends the 200 of a stream that throws before its first chunk, then cuts it as a failure', async () => {
    const raw = await rawExchange(
      server.port,
      'GET /throws-at-once HTTP/1.1\r\nHost: a\r\nX-Request-ID: first-2\r\n\r\n',
    );
    expect(raw.split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
    // A chunked body with no last chunk: the client sees it incomplete (RFC 9112 §7.1).
    expect(raw.endsWith('0\r\n\r\n')).toBe(false);
    const failed = log.lines.filter(
      (line) =>
        line.message === 'Response body stream failed' && line.fields?.requestId === 'first-2',
    );
    expect(failed).toHaveLength(1);
  });

  it('answers 500 when Node refuses a header value, and keeps serving', async () => {
    const response = await send(server.port, {
      path: '/bad-header',
      headers: { 'X-Request-ID': 'trace-42' },
    });
    expect(response.status).toBe(500);
    expect(response.headers['x-request-id']).toBe('trace-42');
    const refused = log.lines.find(
      (line) => line.message === 'Response headers could not be written',
    );
    expect(refused?.fields?.requestId).toBe('trace-42');
    expect((await send(server.port, { path: '/' })).status).toBe(200);
    const raw = await rawExchange(
      server.port,
      'GET /bad-header HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n',
    );
    expect(raw.split('\r\n')[0]).toBe('HTTP/1.1 500 Internal Server Error');
  });

  it.each([
    ['above U+00FF', '/euro-header', 'X-Euro', 'characters above U+00FF'],
    ['with a control character', '/control-header?note=a%01b', 'X-Note', 'control characters'],
  ])(
    "answers a header value %s with the application's 500, not the fallback",
    async (_what, path, name, reason) => {
      const response = await send(server.port, { path });
      expect(response.status).toBe(500);
      expect(response.headers['content-type']).toBe('application/json');
      expect(JSON.parse(response.body.toString())).toMatchObject({ statusCode: 500 });
      const failure = log.lines.find(
        (line) =>
          line.message === 'Unhandled error in request' &&
          String((line.fields?.error as Error | undefined)?.message).includes(name),
      );
      const message = (failure?.fields?.error as Error | undefined)?.message;
      expect(message).toContain(`Invalid value for header ${name}`);
      expect(message).toContain(reason);
      // Refused by the core, through the error path: Node's writeHead never saw it.
      const requestId = response.headers['x-request-id'];
      const refused = log.lines.filter(
        (line) =>
          line.message === 'Response headers could not be written' &&
          line.fields?.requestId === requestId,
      );
      expect(refused).toEqual([]);
    },
  );
});

describe('clients that go away', () => {
  async function readThenDisconnect(path: string): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      const outgoing = httpRequest(
        { host: '127.0.0.1', port: server.port, path, agent: false },
        (incoming) => {
          let received = 0;
          incoming.on('data', (chunk: Buffer) => {
            received += chunk.length;
            if (received > 256 * 1024) {
              outgoing.destroy();
              resolve();
            }
          });
        },
      );
      outgoing.on('error', (error: NodeJS.ErrnoException) => {
        if (error.code !== 'ECONNRESET') reject(error);
      });
      outgoing.end();
    });
  }

  it('stops an endless generator when the client disconnects mid-response', async () => {
    streamEvents.length = 0;
    const errorsBefore = log.lines.filter((line) => line.level === 'error').length;
    await readThenDisconnect('/endless');
    for (let i = 0; i < 50 && !streamEvents.includes('finally'); i++) await sleep(20);
    expect(streamEvents).toContain('finally');
    const produced = streamEvents.filter((event) => event === 'chunk').length;
    await sleep(100);
    // Nothing more is produced once the generator has been closed.
    expect(streamEvents.filter((event) => event === 'chunk').length).toBe(produced);
    // A client leaving is not an error of the application.
    expect(log.lines.filter((line) => line.level === 'error').length).toBe(errorsBefore);
    expect((await send(server.port, { path: '/' })).status).toBe(200);
  });

  it('destroys a Node stream body when the client disconnects', async () => {
    streamEvents.length = 0;
    await readThenDisconnect('/endless-readable');
    for (let i = 0; i < 50 && !streamEvents.includes('readable closed'); i++) await sleep(20);
    expect(streamEvents).toContain('readable closed');
  });

  it('does not let a stream run ahead of a client that stops reading', async () => {
    streamEvents.length = 0;
    const outgoing = httpRequest({
      host: '127.0.0.1',
      port: server.port,
      path: '/endless',
      agent: false,
    });
    outgoing.on('error', () => undefined);
    outgoing.on('response', (incoming) => incoming.pause());
    outgoing.end();
    await sleep(500);
    const produced = streamEvents.filter((event) => event === 'chunk').length;
    outgoing.destroy();
    // 16 KiB chunks: without backpressure this would be thousands within half a second. What
    // is there is what the socket buffers on both sides hold.
    expect(produced * 16 * 1024).toBeLessThan(32 * MiB);
    for (let i = 0; i < 50 && !streamEvents.includes('finally'); i++) await sleep(20);
    expect(streamEvents).toContain('finally');
  });
});

describe('requests without content (RFC 9112 §6.3)', () => {
  const post = (framing: string, content = '') =>
    rawExchange(
      server.port,
      `POST /search HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n${framing}\r\n${content}`,
    );
  const status = (raw: string) => Number(raw.slice(9, 12));

  it('gives a body validator undefined without Content-Length and Transfer-Encoding, or with length 0', async () => {
    for (const framing of ['', 'Content-Length: 0\r\n']) {
      const raw = await post(framing);
      expect(status(raw)).toBe(200);
      expect(raw.endsWith('{"tag":null}')).toBe(true);
    }
  });

  it('treats an empty chunked body as none, and one with bytes as content: 415 without a Content-Type', async () => {
    const empty = await post('Transfer-Encoding: chunked\r\n', '0\r\n\r\n');
    expect(status(empty)).toBe(200);
    expect(empty.endsWith('{"tag":null}')).toBe(true);
    const chunked = await post('Transfer-Encoding: chunked\r\n', 'b\r\n{"tag":"a"}\r\n0\r\n\r\n');
    expect(status(chunked)).toBe(415);
    const typed = await post(
      'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n',
      'b\r\n{"tag":"a"}\r\n0\r\n\r\n',
    );
    expect(status(typed)).toBe(200);
    expect(typed.endsWith('{"tag":"a"}')).toBe(true);
    expect(status(await post('Content-Length: 11\r\n', '{"tag":"a"}'))).toBe(415);
  });
});

describe('oversized bodies', () => {
  it('answers 413 from Content-Length without reading the body, and closes', async () => {
    const before = sockets.length;
    const result = await upload(server.port, 50 * MiB, { 'content-length': String(50 * MiB) });
    expect(result.status).toBe(413);
    expect(result.connection).toBe('close');
    expect(JSON.parse(result.body)).toMatchObject({ statusCode: 413, path: '/upload' });
    await sleep(50);
    const socket = sockets[before] as Socket;
    expect(socket.destroyed).toBe(true);
    // The server read the headers and whatever was already in flight, not 50 MiB.
    expect(socket.bytesRead).toBeLessThan(8 * MiB);
    expect((await send(server.port, { path: '/' })).status).toBe(200);
  });

  it('answers 413 when a chunked body crosses the limit, without reading the rest', async () => {
    const before = sockets.length;
    const result = await upload(server.port, 50 * MiB, { 'transfer-encoding': 'chunked' });
    expect(result.status).toBe(413);
    expect(result.connection).toBe('close');
    await sleep(50);
    const socket = sockets[before] as Socket;
    expect(socket.destroyed).toBe(true);
    expect(socket.bytesRead).toBeLessThan(8 * MiB);
  });

  it('refuses an oversized Expect: 100-continue request before the client sends the body', async () => {
    const reply = await rawExchange(
      server.port,
      'POST /upload HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/plain\r\n' +
        `Content-Length: ${50 * MiB}\r\nExpect: 100-continue\r\n\r\n`,
    );
    expect(reply).toMatch(/^HTTP\/1\.1 413 /);
    expect(reply).not.toContain('100 Continue');
  });

  it('sends 100 Continue when the application reads the body', async () => {
    const reply = await new Promise<string>((resolve, reject) => {
      const outgoing = httpRequest({
        host: '127.0.0.1',
        port: server.port,
        method: 'POST',
        path: '/upload',
        agent: false,
        headers: { 'content-type': 'text/plain', 'content-length': '5', expect: '100-continue' },
      });
      outgoing.on('continue', () => outgoing.end('hello'));
      outgoing.on('response', (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () => resolve(Buffer.concat(chunks).toString()));
      });
      outgoing.on('error', reject);
    });
    expect(JSON.parse(reply)).toEqual({ length: 5 });
  });

  it('closes the connection after answering a request whose body it never read', async () => {
    // The handler ignores the body; most of the declared 60 KiB (under the limit) never arrives.
    const reply = await rawExchange(
      server.port,
      `POST /ignore-body HTTP/1.1\r\nHost: localhost\r\nContent-Length: ${60 * 1024}\r\n\r\npartial`,
    );
    expect(reply).toMatch(/^HTTP\/1\.1 200 /);
    expect(reply).toContain('Connection: close');
  });
});

describe('requests pipelined behind a body nobody read', () => {
  const first = 'POST /ignore-body HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\n';
  const charge =
    'POST /charge HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n';
  const statusLines = (reply: string) => reply.match(/HTTP\/1\.1 \d{3}/g);

  it('discards a small body of declared length and answers the next request too', async () => {
    charges.length = 0;
    const reply = await rawExchange(server.port, `${first}Content-Length: 5\r\n\r\nhello${charge}`);
    expect(statusLines(reply)).toEqual(['HTTP/1.1 200', 'HTTP/1.1 200']);
    expect(reply).toContain('charged');
    expect(charges).toEqual(['charged']);
  });

  it('does not run a request sent after an answer that closes the connection (RFC 9112 §9.6)', async () => {
    for (const body of [
      // Of unknown length, of a length too large to discard, and a request that asked to close.
      'Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n',
      `Content-Length: 20000\r\n\r\n${'x'.repeat(20_000)}`,
      'Content-Length: 5\r\nConnection: close\r\n\r\nhello',
    ]) {
      charges.length = 0;
      const reply = await rawExchange(server.port, `${first}${body}${charge}`);
      expect(statusLines(reply), body).toEqual(['HTTP/1.1 200']);
      expect(reply, body).toContain('Connection: close');
      // The client gets no answer to the request, so it knows to retry it; it never ran.
      expect(charges, body).toEqual([]);
    }
  });
});

describe('malformed requests', () => {
  const cases: Array<[string, string, RegExp]> = [
    ['a garbage request line', 'HELLO\r\n\r\n', /^HTTP\/1\.1 400 /],
    ['a method outside the parser table', 'BREW / HTTP/1.1\r\nHost: x\r\n\r\n', /^HTTP\/1\.1 400 /],
    [
      'a header without a colon',
      'GET / HTTP/1.1\r\nHost: x\r\nBroken header\r\n\r\n',
      /^HTTP\/1\.1 400 /,
    ],
    [
      'a control character in a header value',
      'GET / HTTP/1.1\r\nHost: x\r\nX-A: a\x01b\r\n\r\n',
      /^HTTP\/1\.1 400 /,
    ],
    ['a space inside the target', 'GET /a b HTTP/1.1\r\nHost: x\r\n\r\n', /^HTTP\/1\.1 400 /],
    ['an unsupported HTTP version', 'GET / HTTP/9.9\r\nHost: x\r\n\r\n', /^HTTP\/1\.1 (400|505) /],
    [
      'Content-Length together with Transfer-Encoding (request smuggling)',
      'POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      /^HTTP\/1\.1 400 /,
    ],
    [
      'two different Content-Length values',
      'POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nContent-Length: 5\r\n\r\nabcd',
      /^HTTP\/1\.1 400 /,
    ],
    [
      'a bad chunk size',
      'POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: text/plain\r\n\r\nzz\r\n',
      /^HTTP\/1\.1 400 /,
    ],
    ['no Host header in HTTP/1.1', 'GET / HTTP/1.1\r\n\r\n', /^HTTP\/1\.1 400 /],
    ['an empty Host', 'GET / HTTP/1.1\r\nHost:\r\n\r\n', /^HTTP\/1\.1 400 /],
    [
      'headers over the size limit',
      `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      /^HTTP\/1\.1 431 /,
    ],
  ];

  for (const [title, text, expected] of cases) {
    it(`answers ${title} with a 4xx and stays up`, async () => {
      const reply = await rawExchange(server.port, text);
      expect(reply).toMatch(expected);
      expect((await send(server.port, { path: '/' })).status).toBe(200);
    });
  }

  it('survives a client that sends half a request and vanishes', async () => {
    await rawExchange(
      server.port,
      'POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nabc',
      100,
    );
    expect((await send(server.port, { path: '/' })).status).toBe(200);
  });
});

describe('an onResponse hook that writes framing fields', () => {
  it('cannot change how the body is framed: the server puts its own back and warns', async () => {
    const { lines, logger } = memoryLogger();
    const app = new RestApplication({ logger });
    app.get('/text', () => 'hello world');
    app.get('/next', () => 'next');
    app.onResponse(({ response, request }) => {
      if (request.path !== '/text') return;
      response.headers.set('Content-Length', '3');
      response.headers.set('Transfer-Encoding', 'chunked');
      response.headers.set('X-Hooked', 'yes');
    });
    const handle = await start(app);
    try {
      const raw = await rawExchange(
        handle.port,
        'GET /text HTTP/1.1\r\nHost: x\r\n\r\nGET /next HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
      );
      const [first, second] = raw.split(/(?=HTTP\/1\.1 )/);
      expect(first).toMatch(/\r\ncontent-length: 11\r\n/i);
      expect(first).not.toMatch(/transfer-encoding/i);
      // The hook's other headers stay.
      expect(first).toMatch(/\r\nx-hooked: yes\r\n/i);
      expect(first?.endsWith('\r\n\r\nhello world')).toBe(true);
      expect(second?.endsWith('\r\n\r\nnext')).toBe(true);
      expect(lines.filter((line) => line.level === 'warn').map((line) => line.message)).toEqual([
        "An onResponse hook changed Content-Length or Transfer-Encoding; the framing is the server's, so they were put back",
      ]);
    } finally {
      await handle.close();
    }
  });
});

describe('a 204 given Transfer-Encoding by a handler or default headers (RFC 9112 §6.1)', () => {
  it('goes without it, and the requests pipelined behind it are answered', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.defaultHeaders(({ request }) =>
      request.path === '/next' ? undefined : { 'Transfer-Encoding': 'chunked' },
    );
    app.get('/chunked-204', () => [undefined, 204, { 'Transfer-Encoding': 'chunked' }]);
    app.get('/preflighted', () => 'x').cors({});
    app.get('/next', () => 'next');
    const handle = await start(app);
    const preflight = 'Origin: https://a.example\r\nAccess-Control-Request-Method: GET\r\n';
    try {
      for (const first of [
        'GET /chunked-204 HTTP/1.1\r\nHost: x\r\n\r\n',
        // The automatic OPTIONS answer, and a CORS preflight, with default headers' coding.
        'OPTIONS /preflighted HTTP/1.1\r\nHost: x\r\n\r\n',
        `OPTIONS /preflighted HTTP/1.1\r\nHost: x\r\n${preflight}\r\n`,
      ]) {
        const reply = await rawExchange(
          handle.port,
          `${first}GET /next HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
        );
        const [answer, next] = reply.split(/(?=HTTP\/1\.1 )/);
        expect(answer, first).toMatch(/^HTTP\/1\.1 204 /);
        expect(answer, first).not.toMatch(/transfer-encoding/i);
        expect(next?.endsWith('\r\n\r\nnext'), first).toBe(true);
      }
    } finally {
      await handle.close();
    }
  });
});

describe('requests whose Host or transfer coding the server must refuse', () => {
  it('answers 400 to two Host lines or an invalid Host, and 501 to a coding besides chunked', async () => {
    const { lines, logger } = memoryLogger();
    const app = new RestApplication({ logger });
    const reached: string[] = [];
    app.get('/where', ({ headers }) => {
      reached.push(headers.get('host') ?? '');
      return 'here';
    });
    app.post('/upload', async ({ request }) => {
      reached.push('upload');
      return (await request.bytes()).length;
    });
    const handle = await start(app);
    try {
      const twice = await rawExchange(
        handle.port,
        'GET /where HTTP/1.1\r\nHost: good.example\r\nhost: evil.example\r\nConnection: close\r\n\r\n',
      );
      expect(twice).toMatch(/^HTTP\/1\.1 400 /);
      expect(twice).toMatch(/\r\nx-request-id: /i);
      expect(twice).toContain('More than one Host header');
      const invalid = await rawExchange(
        handle.port,
        'GET /where HTTP/1.1\r\nHost: a b/c\r\nConnection: close\r\n\r\n',
      );
      expect(invalid).toMatch(/^HTTP\/1\.1 400 /);
      const fine = await rawExchange(
        handle.port,
        'GET /where HTTP/1.1\r\nHost: [::1]:8080\r\nConnection: close\r\n\r\n',
      );
      expect(fine).toMatch(/^HTTP\/1\.1 200 /);
      const gzip = await rawExchange(
        handle.port,
        'POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n' +
          '5\r\nabcde\r\n0\r\n\r\n',
      );
      expect(gzip).toMatch(/^HTTP\/1\.1 501 /);
      expect(gzip).toContain('Transfer-Encoding \\"gzip, chunked\\" is not implemented');
      expect(reached).toEqual(['[::1]:8080']);
      // Answers about the request, not failures of the server.
      expect(lines.filter((line) => line.level === 'error')).toEqual([]);
    } finally {
      await handle.close();
    }
  });
});

describe('an HTTP/1.0 request with Transfer-Encoding (RFC 9112 §6.1)', () => {
  it('is refused with 400 as faulty framing, and its connection closed though it asked to keep it', async () => {
    const began = Date.now();
    const reply = await rawExchange(
      server.port,
      'POST /upload HTTP/1.0\r\nHost: x\r\nConnection: keep-alive\r\nContent-Type: text/plain\r\n' +
        'Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n',
      5_000,
    );
    // The server closed the connection: the exchange did not wait for its 5 s timeout.
    expect(Date.now() - began).toBeLessThan(2_000);
    expect(reply.match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 400']);
    expect(reply).toContain('Transfer-Encoding in an HTTP/1.0 request');
    expect(reply).toContain('\r\nConnection: close\r\n');
  });
});

describe('a request target with a fragment', () => {
  it('is routed without it, as a Fetch runtime reads it (RFC 9110 §4.2.5)', async () => {
    const app = new RestApplication();
    app.get('/a/{id}', ({ id, request }) => ({ id, path: request.path }));
    const handle = await start(app);
    try {
      const raw = await rawExchange(
        handle.port,
        'GET /a/1#frag HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
      );
      expect(raw.endsWith('{"id":"1","path":"/a/1"}')).toBe(true);
    } finally {
      await handle.close();
    }
  });
});

describe('a CONNECT request', () => {
  it('gets the 501 of a method restmachine does not route, then the connection closes', async () => {
    const { lines, logger } = memoryLogger();
    const handle = await start(new RestApplication({ logger }));
    try {
      const raw = await rawExchange(
        handle.port,
        'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n',
      );
      expect(raw).toMatch(/^HTTP\/1\.1 501 Not Implemented\r\n/);
      expect(raw).toMatch(/\r\nx-request-id: /i);
      expect(raw).toContain('Method \\"CONNECT\\" is not implemented');
      expect(lines.filter((line) => line.level === 'error')).toEqual([]);
    } finally {
      await handle.close();
    }
  });
});
