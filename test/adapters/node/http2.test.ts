/**
 * The Node adapter's listener on a `node:http2` server (docs/node.md, "HTTP/2"), over real
 * HTTP/2 on 127.0.0.1 with Node's HTTP/2 client. Node hands the listener its compatibility
 * objects (Http2ServerRequest, Http2ServerResponse), shaped as HTTP/1's but not alike: one
 * response is one stream of a shared connection, which has no socket of its own to cut.
 */

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import {
  type ClientHttp2Session,
  connect,
  constants,
  createSecureServer,
  createServer,
  type Http2Server,
  type IncomingHttpHeaders,
  type OutgoingHttpHeaders,
  type ServerHttp2Stream,
} from 'node:http2';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { NodeAdapter } from '../../../src/adapters/node/index.js';
import { writeFallback } from '../../../src/adapters/node/response.js';
import { Response, RestApplication } from '../../../src/index.js';
import { memoryLogger, sleep } from './helpers.js';

interface Served {
  adapter: NodeAdapter;
  server: Http2Server;
  client: ClientHttp2Session;
}

let served: Served | undefined;

afterEach(async () => {
  if (served === undefined) return;
  served.client.destroy();
  await new Promise((done) => served?.server.close(done));
  served = undefined;
});

/** Serves `app` with h2c on a free loopback port, and connects a client to it. */
async function serveH2(app: RestApplication): Promise<Served> {
  const adapter = new NodeAdapter(app);
  // Node's HTTP/2 compatibility API hands the listener objects shaped as HTTP/1's; its types
  // differ by fields the adapter does not read.
  const server = createServer(adapter.listener as unknown as Parameters<typeof createServer>[0]);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const client = connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  client.on('error', () => undefined);
  served = { adapter, server, client };
  return served;
}

interface Exchange {
  headers: IncomingHttpHeaders | undefined;
  body: string;
  /** The stream's RST_STREAM code (0 when it closed normally or with NO_ERROR). */
  rstCode: number | undefined;
  /** Whether the response ended with END_STREAM, as a whole response does. */
  ended: boolean;
}

/** One request on `client`; resolves once its stream closed, however it closed. */
function exchange(
  client: ClientHttp2Session,
  headers: OutgoingHttpHeaders,
  body?: string | Uint8Array,
): Promise<Exchange> {
  return new Promise((resolve) => {
    const stream = client.request(headers, { endStream: body === undefined });
    let response: IncomingHttpHeaders | undefined;
    let text = '';
    let ended = false;
    stream.on('response', (received) => {
      response = received;
    });
    stream.on('data', (chunk: Buffer) => {
      text += chunk.toString();
    });
    stream.on('end', () => {
      ended = true;
    });
    stream.on('error', () => undefined);
    stream.on('close', () =>
      resolve({ headers: response, body: text, rstCode: stream.rstCode, ended }),
    );
    if (body !== undefined) stream.end(body);
  });
}

async function* failingAfterOneChunk(): AsyncGenerator<string> {
  yield 'first chunk\n';
  await sleep(30);
  throw new Error('boom');
}

describe('a response body that fails midway on HTTP/2', () => {
  it('is logged and resets only its own stream: the chunk before the failure arrives, the connection serves on', async () => {
    const { lines, logger } = memoryLogger();
    const app = new RestApplication({ logger });
    app.get('/fail', () => failingAfterOneChunk());
    app.get(
      '/fail-length',
      () => new Response(200, failingAfterOneChunk(), { headers: { 'content-length': '100' } }),
    );
    app.get('/ok', () => ({ ok: true }));
    const { client } = await serveH2(app);

    const [failed, failedWithLength, alongside] = await Promise.all([
      exchange(client, { ':path': '/fail' }),
      exchange(client, { ':path': '/fail-length' }),
      exchange(client, { ':path': '/ok' }),
    ]);
    for (const cut of [failed, failedWithLength]) {
      expect(cut.headers?.[':status']).toBe(200);
      expect(cut.body).toBe('first chunk\n');
      expect(cut.ended).toBe(false);
      expect(cut.rstCode).toBe(constants.NGHTTP2_INTERNAL_ERROR);
    }
    expect(JSON.parse(alongside.body)).toEqual({ ok: true });
    // The same connection goes on serving.
    const after = await exchange(client, { ':path': '/ok' });
    expect(after.headers?.[':status']).toBe(200);
    expect(lines.filter((line) => line.message === 'Response body stream failed')).toHaveLength(2);
  });
});

/** Resolves once `condition()` holds, or after `ms` whether it holds or not. */
async function until(condition: () => boolean, ms: number): Promise<void> {
  for (const deadline = Date.now() + ms; !condition() && Date.now() < deadline; ) await sleep(10);
}

/** Resolves once `adapter.inFlight` is 0, or after `ms` with whatever it is then. */
async function settled(adapter: NodeAdapter, ms = 2_000): Promise<number> {
  await until(() => adapter.inFlight === 0, ms);
  return adapter.inFlight;
}

describe('a client that resets its stream on HTTP/2', () => {
  it('while an async handler runs: the stream it returns is released, and inFlight goes back to 0', async () => {
    const state = { started: false, produced: 0, finished: false };
    const app = new RestApplication();
    app.get('/feed', async () => {
      await sleep(150);
      return (async function* () {
        state.started = true;
        try {
          for (;;) {
            state.produced++;
            yield `data: ${'x'.repeat(100)}\n\n`;
            await sleep(5);
          }
        } finally {
          state.finished = true;
        }
      })();
    });
    const { adapter, client } = await serveH2(app);
    const stream = client.request({ ':path': '/feed' }, { endStream: true });
    stream.on('error', () => undefined);
    await sleep(50);
    stream.close(constants.NGHTTP2_CANCEL);

    expect(await settled(adapter)).toBe(0);
    const produced = state.produced;
    await sleep(100);
    expect(state.produced).toBe(produced);
    // Never started, or stopped with its `finally` run.
    expect(state.started === false || state.finished).toBe(true);
  });

  it('while an async handler runs: the file it returns is never left open, and inFlight goes back to 0', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'restmachine-h2-'));
    const path = join(directory, 'big.bin');
    writeFileSync(path, Buffer.alloc(1 << 20, 97));
    try {
      const app = new RestApplication();
      app.get('/file', async () => {
        await sleep(100);
        return Response.file(path);
      });
      const { adapter, client } = await serveH2(app);
      for (let i = 0; i < 5; i++) {
        const stream = client.request({ ':path': '/file' }, { endStream: true });
        stream.on('error', () => undefined);
        setTimeout(() => stream.close(constants.NGHTTP2_CANCEL), 30);
      }
      await sleep(50);
      expect(await settled(adapter)).toBe(0);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('mid-stream: the stream is released, and inFlight goes back to 0', async () => {
    const state = { produced: 0, finished: false };
    const app = new RestApplication();
    app.get('/feed', () =>
      (async function* () {
        try {
          for (;;) {
            state.produced++;
            yield `data: ${'x'.repeat(100)}\n\n`;
            await sleep(5);
          }
        } finally {
          state.finished = true;
        }
      })(),
    );
    const { adapter, client } = await serveH2(app);
    const stream = client.request({ ':path': '/feed' }, { endStream: true });
    stream.on('error', () => undefined);
    stream.on('data', () => undefined);
    await sleep(50);
    stream.close(constants.NGHTTP2_CANCEL);
    expect(await settled(adapter)).toBe(0);
    expect(state.finished).toBe(true);
  });
});

describe('a request body cut short on HTTP/2', () => {
  /** An app whose handlers record how reading the body ended, as text or by iterating it. */
  function recordingApp(outcomes: string[]): RestApplication {
    const app = new RestApplication();
    const record = async (read: () => Promise<number>) => {
      try {
        outcomes.push(`read ${await read()}`);
      } catch (error) {
        outcomes.push(`rejected ${(error as { statusCode?: number }).statusCode}`);
        throw error;
      }
      return null;
    };
    app.post('/text', ({ request }) => record(async () => (await request.text()).length));
    app.post('/iterate', ({ request }) =>
      record(async () => {
        // The Node adapter's body: a NodeRequestBody, iterated chunk by chunk.
        let length = 0;
        for await (const chunk of request.body as AsyncIterable<Uint8Array>) length += chunk.length;
        return length;
      }),
    );
    return app;
  }

  it('by the client resetting its stream mid-upload is rejected as incomplete, never read as whole', async () => {
    const outcomes: string[] = [];
    const { client } = await serveH2(recordingApp(outcomes));
    for (const path of ['/text', '/iterate']) {
      const stream = client.request({ ':method': 'POST', ':path': path, 'content-length': '5000' });
      stream.on('error', () => undefined);
      stream.write(Buffer.alloc(1000, 97));
      await sleep(50);
      stream.close(constants.NGHTTP2_CANCEL);
    }
    await until(() => outcomes.length >= 2, 2_000);
    expect(outcomes).toEqual(['rejected 400', 'rejected 400']);
  });

  it('by a reset without Content-Length (RST_STREAM, no END_STREAM) is rejected as incomplete, by text() and by iteration', async () => {
    const outcomes: string[] = [];
    const { client } = await serveH2(recordingApp(outcomes));
    for (const path of ['/text', '/iterate']) {
      const stream = client.request({ ':method': 'POST', ':path': path });
      stream.on('error', () => undefined);
      stream.write(Buffer.alloc(1000, 97));
      await sleep(50);
      // destroy(), not close(): Node's close() first ends the stream (END_STREAM), which makes
      // what was sent a whole body, and resets it only after; a browser or curl sends RST_STREAM
      // alone, as destroy() does.
      stream.destroy();
    }
    await until(() => outcomes.length >= 2, 2_000);
    expect(outcomes).toEqual(['rejected 400', 'rejected 400']);
    // A body whose stream ended normally is read whole, without Content-Length too.
    for (const path of ['/text', '/iterate']) {
      await exchange(client, { ':method': 'POST', ':path': path }, 'hello');
    }
    await until(() => outcomes.length >= 4, 2_000);
    expect(outcomes.slice(2)).toEqual(['read 5', 'read 5']);
  });

  it('shorter than its Content-Length is rejected as incomplete (RFC 9113 §8.1.1)', async () => {
    const outcomes: string[] = [];
    const { client } = await serveH2(recordingApp(outcomes));
    for (const path of ['/text', '/iterate']) {
      await exchange(client, { ':method': 'POST', ':path': path, 'content-length': '10' }, 'hello');
    }
    await until(() => outcomes.length >= 2, 2_000);
    expect(outcomes).toEqual(['rejected 400', 'rejected 400']);
  });
});

describe("the request's signal on HTTP/2", () => {
  function signalApp(aborted: string[]): RestApplication {
    const app = new RestApplication();
    app.get('/wait/{name}', async ({ name, signal }) => {
      signal.addEventListener('abort', () => aborted.push(name));
      await sleep(600);
      return { done: true };
    });
    return app;
  }

  it('fires when the client resets the stream, and not for a response that completed', async () => {
    const aborted: string[] = [];
    const { client } = await serveH2(signalApp(aborted));
    const stream = client.request({ ':path': '/wait/reset' }, { endStream: true });
    stream.on('error', () => undefined);
    const completed = exchange(client, { ':path': '/wait/completed' });
    await sleep(50);
    stream.close(constants.NGHTTP2_CANCEL);
    // While the handlers still wait.
    await until(() => aborted.length > 0, 400);
    expect(aborted).toEqual(['reset']);
    expect(JSON.parse((await completed).body)).toEqual({ done: true });
    await sleep(50);
    expect(aborted).toEqual(['reset']);
  });

  it('fires when the connection drops', async () => {
    const aborted: string[] = [];
    const { client } = await serveH2(signalApp(aborted));
    const stream = client.request({ ':path': '/wait/dropped' }, { endStream: true });
    stream.on('error', () => undefined);
    await sleep(50);
    client.destroy();
    await until(() => aborted.length > 0, 400);
    expect(aborted).toEqual(['dropped']);
  });
});

/** `promise`'s value, or 'still open' when it takes longer than `ms`. */
function within<T>(promise: Promise<T>, ms: number): Promise<T | 'still open'> {
  return Promise.race([promise, sleep(ms).then(() => 'still open' as const)]);
}

describe('closing after a response on HTTP/2', () => {
  it('resets the stream with NO_ERROR once a 413 is complete, so the unread rest of the body costs nothing (RFC 9113 §8.1)', async () => {
    const app = new RestApplication({ bodyLimit: 1000 });
    app.post('/json', ({ jsonBody }) => ({ received: jsonBody !== undefined }));
    const { client, server } = await serveH2(app);
    let open = 0;
    server.on('stream', (stream: ServerHttp2Stream) => {
      open++;
      stream.on('close', () => open--);
    });
    // Far more than the stream's flow-control window (64 KiB): unread, it stalls the client.
    const large = Buffer.alloc(1 << 20, 32);
    const json = { ':method': 'POST', ':path': '/json', 'content-type': 'application/json' };
    // Crossing the limit while being read: no Content-Length, as is usual on HTTP/2; and refused
    // on its declared length, before a byte is read.
    for (const headers of [json, { ...json, 'content-length': String(large.length) }]) {
      const stream = client.request(headers);
      stream.on('error', () => undefined);
      const status = new Promise<unknown>((resolve) =>
        stream.on('response', (head) => resolve(head[':status'])),
      );
      let body = '';
      stream.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      const ended = new Promise((resolve) => stream.on('end', resolve));
      stream.end(large);
      expect(await status).toBe(413);
      await within(ended, 2_000);
      expect(JSON.parse(body)).toMatchObject({ statusCode: 413 });
      // Node's client emits no `close` for a stream reset while it still had bytes to send.
      await until(() => stream.closed, 2_000);
      expect(stream.closed).toBe(true);
      expect(stream.rstCode).toBe(constants.NGHTTP2_NO_ERROR);
    }
    // The server released both streams, and the connection serves on.
    await until(() => open === 0, 2_000);
    expect(open).toBe(0);
    const after = await exchange(client, json, '{}');
    expect(JSON.parse(after.body)).toEqual({ received: true });
  });

  it('while draining closes the connection gracefully (GOAWAY), with no Connection field (RFC 9113 §8.2.2)', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => {
      warnings.push(warning.name);
    };
    process.on('warning', onWarning);
    try {
      const app = new RestApplication();
      app.get('/', () => ({ ok: true }));
      const { adapter, client } = await serveH2(app);
      const goaway = new Promise<boolean>((resolve) => client.once('goaway', () => resolve(true)));
      adapter.drain();
      const answer = await exchange(client, { ':path': '/' });
      expect(answer.headers?.[':status']).toBe(200);
      expect(JSON.parse(answer.body)).toEqual({ ok: true });
      expect(answer.headers?.connection).toBeUndefined();
      expect(await within(goaway, 1_000)).toBe(true);
      await sleep(20);
      expect(warnings).not.toContain('UnsupportedWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });
});

describe('the header fields of an HTTP/2 request', () => {
  function echoApp(): RestApplication {
    const app = new RestApplication();
    app.get('/echo', ({ request }) => ({
      host: request.headers.get('host') ?? null,
      names: [...request.headers].map(([name]) => name),
    }));
    return app;
  }

  it('give its :authority as Host (RFC 9113 §8.3.1) and list no pseudo-header field (§8.3)', async () => {
    const { client } = await serveH2(echoApp());
    const answer = await exchange(client, {
      ':path': '/echo',
      ':authority': 'api.example.com:8443',
      cookie: 'a=1',
    });
    expect(answer.headers?.[':status']).toBe(200);
    const { host, names } = JSON.parse(answer.body) as { host: string; names: string[] };
    expect(host).toBe('api.example.com:8443');
    expect(names.filter((name) => name.startsWith(':'))).toEqual([]);
    expect(names.filter((name) => name === 'host')).toHaveLength(1);
    expect(names).toContain('cookie');
  });

  it('give several cookie fields as one, joined with "; " (RFC 9113 §8.2.3)', async () => {
    const app = new RestApplication();
    app.get('/cookies', ({ request }) => ({
      get: request.headers.get('cookie') ?? null,
      getAll: request.headers.getAll('cookie'),
    }));
    const { client } = await serveH2(app);
    const answer = await exchange(client, {
      ':path': '/cookies',
      cookie: ['sid=abc', 'theme=dark'],
    });
    expect(JSON.parse(answer.body)).toEqual({
      get: 'sid=abc; theme=dark',
      getAll: ['sid=abc; theme=dark'],
    });
  });

  it('keep a Host sent without :authority, and one that names the same authority', async () => {
    const { client } = await serveH2(echoApp());
    const hostOnly = await exchange(client, { ':path': '/echo', host: 'h.example' });
    expect(JSON.parse(hostOnly.body)).toMatchObject({ host: 'h.example' });
    const same = await exchange(client, {
      ':path': '/echo',
      ':authority': 'API.example.com',
      host: 'api.example.com',
    });
    expect(same.headers?.[':status']).toBe(200);
    expect(JSON.parse(same.body)).toMatchObject({ host: 'API.example.com' });
  });

  it('make a request whose Host differs from its :authority a 400 (RFC 9113 §8.3.1)', async () => {
    const { client } = await serveH2(echoApp());
    const answer = await exchange(client, {
      ':path': '/echo',
      ':authority': 'api.example.com',
      host: 'evil.example',
    });
    expect(answer.headers?.[':status']).toBe(400);
  });
});

describe('a secure HTTP/2 server that allows HTTP/1.1 (allowHTTP1)', () => {
  it('cuts a failing body by its stream on HTTP/2 and by its connection on HTTP/1.1, on one port', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'restmachine-h2-tls-'));
    try {
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:prime256v1',
          '-nodes',
          '-keyout',
          'key.pem',
          '-out',
          'cert.pem',
          '-days',
          '2',
          '-subj',
          '/CN=localhost',
          '-addext',
          'subjectAltName=IP:127.0.0.1',
        ],
        { cwd: directory, stdio: 'pipe' },
      );
      const key = readFileSync(join(directory, 'key.pem'));
      const cert = readFileSync(join(directory, 'cert.pem'));
      const { lines, logger } = memoryLogger();
      const app = new RestApplication({ logger });
      app.get('/fail', () => failingAfterOneChunk());
      app.get('/host', ({ request }) => ({ host: request.headers.get('host') ?? null }));
      const adapter = new NodeAdapter(app);
      const server = createSecureServer(
        { key, cert, allowHTTP1: true },
        adapter.listener as unknown as Parameters<typeof createSecureServer>[1],
      );
      await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
      const port = (server.address() as AddressInfo).port;
      const client = connect(`https://127.0.0.1:${port}`, { ca: cert });
      client.on('error', () => undefined);
      try {
        const failed = await exchange(client, { ':path': '/fail' });
        expect(failed.body).toBe('first chunk\n');
        expect(failed.rstCode).toBe(constants.NGHTTP2_INTERNAL_ERROR);
        const host = await exchange(client, { ':path': '/host' });
        expect(JSON.parse(host.body)).toEqual({ host: `127.0.0.1:${port}` });

        const http1 = await new Promise<{ body: string; complete: boolean }>((resolve, reject) => {
          const outgoing = httpsRequest(
            { host: '127.0.0.1', port, path: '/fail', ca: cert, agent: false },
            (incoming) => {
              let body = '';
              incoming.on('data', (chunk: Buffer) => {
                body += chunk.toString();
              });
              incoming.on('error', () => undefined);
              incoming.on('close', () => resolve({ body, complete: incoming.complete }));
            },
          );
          outgoing.on('error', reject);
          outgoing.end();
        });
        expect(http1).toEqual({ body: 'first chunk\n', complete: false });
        expect(lines.filter((line) => line.message === 'Response body stream failed')).toHaveLength(
          2,
        );
      } finally {
        client.destroy();
        await new Promise((done) => server.close(done));
      }
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

describe('response header fields on HTTP/2 that HTTP/1 would send', () => {
  it('drops the connection-specific ones (RFC 9113 §8.2.2), te: trailers kept, and answers as the handler said', async () => {
    const { lines, logger } = memoryLogger();
    const app = new RestApplication({ logger });
    // RFC 9110 §15.5.22: a 426 must carry Upgrade, which HTTP/2 has no use for.
    app.get('/upgrade', () => new Response(426, 'use TLS', { headers: { upgrade: 'TLS/1.3' } }));
    app.get(
      '/all',
      () =>
        new Response(200, 'ok', {
          headers: {
            connection: 'close',
            'keep-alive': 'timeout=5',
            'proxy-connection': 'keep-alive',
            upgrade: 'h2c',
            'http2-settings': 'AAMAAABkAAQAAP__',
            te: 'gzip',
            'x-kept': 'yes',
          },
        }),
    );
    app.get('/te', () => new Response(200, 'ok', { headers: { te: 'trailers' } }));
    const { client } = await serveH2(app);

    const upgrade = await exchange(client, { ':path': '/upgrade' });
    expect(upgrade.headers?.[':status']).toBe(426);
    expect(upgrade.body).toBe('use TLS');
    expect(upgrade.headers?.upgrade).toBeUndefined();
    const all = await exchange(client, { ':path': '/all' });
    expect(all.headers?.[':status']).toBe(200);
    expect(all.body).toBe('ok');
    expect(all.headers?.['x-kept']).toBe('yes');
    for (const name of [
      'connection',
      'keep-alive',
      'proxy-connection',
      'upgrade',
      'http2-settings',
      'te',
    ]) {
      expect(all.headers?.[name]).toBeUndefined();
    }
    const te = await exchange(client, { ':path': '/te' });
    expect(te.headers?.te).toBe('trailers');
    expect(lines.filter((line) => line.level === 'error')).toEqual([]);
  });

  it('sends the first value of a single-value field given twice, and warns once per route naming it', async () => {
    const { lines, logger } = memoryLogger();
    const app = new RestApplication({ logger });
    app.get(
      '/twice',
      () =>
        new Response(200, 'x', {
          headers: { location: ['/a', '/b'], etag: ['"1"', '"2"'], 'x-many': ['1', '2'] },
        }),
    );
    const { client } = await serveH2(app);
    for (let i = 0; i < 2; i++) {
      const answer = await exchange(client, { ':path': '/twice' });
      expect(answer.headers?.[':status']).toBe(200);
      expect(answer.body).toBe('x');
      expect(answer.headers?.location).toBe('/a');
      expect(answer.headers?.etag).toBe('"1"');
      // A field that may be a list keeps every value.
      expect(answer.headers?.['x-many']).toBe('1, 2');
    }
    const warnings = lines.filter((line) => line.level === 'warn');
    expect(warnings.map((line) => line.fields?.field)).toEqual(['location', 'etag']);
    expect(warnings[0]?.fields?.route).toBe('/twice');
  });

  it('a head Node refused leaves nothing in the fallback 500 written after it', async () => {
    const server = createServer((_req, http2Res) => {
      const res = http2Res as unknown as ServerResponse;
      try {
        res.writeHead(200, ['x-before', 'a', 'upgrade', 'h2c']);
      } catch {
        writeFallback(res, 500);
      }
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const client = connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    client.on('error', () => undefined);
    try {
      const answer = await exchange(client, { ':path': '/' });
      expect(answer.headers?.[':status']).toBe(500);
      expect(answer.body).toBe('Internal Server Error');
      expect(answer.headers?.['x-before']).toBeUndefined();
      expect(answer.ended).toBe(true);
    } finally {
      client.destroy();
      await new Promise((done) => server.close(done));
    }
  });

  it('a fallback that cannot be written (the head is out) resets only its stream with INTERNAL_ERROR', async () => {
    const server = createServer((req, res) => {
      if (req.url === '/ok') {
        res.end('ok');
        return;
      }
      res.writeHead(200);
      res.write('partial');
      writeFallback(res as unknown as ServerResponse, 500);
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const client = connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    client.on('error', () => undefined);
    try {
      const failed = await exchange(client, { ':path': '/' });
      expect(failed.headers?.[':status']).toBe(200);
      expect(failed.ended).toBe(false);
      expect(failed.rstCode).toBe(constants.NGHTTP2_INTERNAL_ERROR);
      expect((await exchange(client, { ':path': '/ok' })).body).toBe('ok');
    } finally {
      client.destroy();
      await new Promise((done) => server.close(done));
    }
  });
});
