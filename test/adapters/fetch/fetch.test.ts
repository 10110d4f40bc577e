/**
 * The Fetch adapter with Node's own WHATWG `Request`/`Response`: mapping, streaming both ways,
 * files, cookies, startup, and a round trip over real HTTP through a Fetch-style server.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { FetchAdapter } from '../../../src/adapters/fetch/index.js';
import {
  type FileBody,
  type Logger,
  MultiValueHeaders,
  Response,
  RestApplication,
  type Request as RestRequest,
  silentLogger,
  sse,
} from '../../../src/index.js';
import { StaticRouter } from '../../../src/static/index.js';
import { listenFetch } from './fetch-server.js';

const lines: Array<{ level: string; message: string; fields?: Record<string, unknown> }> = [];
const logger: Logger = {
  debug: (message) => lines.push({ level: 'debug', message }),
  info: (message) => lines.push({ level: 'info', message }),
  warn: (message) => lines.push({ level: 'warn', message }),
  error: (message, fields) => lines.push({ level: 'error', message, ...(fields && { fields }) }),
};

const events: string[] = [];
let directory: string;
let adapter: FetchAdapter;

/** What the pipeline saw of a request's target. */
function echoTarget({ request }: { request: RestRequest }) {
  return {
    path: request.path,
    query: request.queryString,
    tls: request.tls,
    protocol: request.protocol,
  };
}

function buildApp() {
  const app = new RestApplication({ logger, bodyLimit: 1024 }).validates(
    'filters',
    z.object({ tag: z.string() }).optional(),
  );
  app.get('/', () => ({ hello: 'world' }));
  app.post('/search', ({ filters }) => ({ tag: filters?.tag ?? null }));
  app.get('/{rest*}', echoTarget);
  // Targets the router refuses (an encoded separator in a catch-all segment is a 404, a bad
  // escape a 400) are echoed the same way, so every mapping can be checked.
  app.errorHandler(echoTarget);
  app.post('/echo', async ({ request }) => {
    const bytes = await request.bytes();
    return new Response(200, bytes, { contentType: 'application/octet-stream' });
  });
  app.post('/json', ({ jsonBody }) => jsonBody);
  app.get('/cookies', () =>
    new Response(200, { ok: true })
      .setCookie('a', '1', { path: '/' })
      .setCookie('b', 'x, y')
      .setCookie('c', '3', { httpOnly: true }),
  );
  app.get('/endless', () => {
    async function* endless() {
      try {
        for (let i = 0; ; i++) {
          events.push(`chunk ${i}`);
          yield i % 2 === 0 ? `text ${i};` : new TextEncoder().encode(`bytes ${i};`);
        }
      } finally {
        events.push('finally');
      }
    }
    return new Response(200, endless(), { contentType: 'text/plain' });
  });
  app.get('/file', () => Response.file(join(directory, 'note.txt')));
  app.get('/file-slice', () => {
    const response = Response.file(join(directory, 'note.txt'), { status: 206 });
    const body = response.body as FileBody;
    body.start = 6;
    body.end = 9;
    response.headers.set('Content-Length', 4);
    return response;
  });
  return app;
}

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'restmachine-fetch-'));
  await writeFile(join(directory, 'note.txt'), 'hello file body');
  adapter = new FetchAdapter(buildApp());
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe('request mapping', () => {
  it('keeps the raw path and query, drops the fragment, and reads the scheme', async () => {
    const response = await adapter.fetch(
      new Request('https://api.test//a/%2F/b%20c?x=1&x=%26#frag'),
    );
    expect(await response.json()).toEqual({
      path: '//a/%2F/b%20c',
      query: 'x=1&x=%26',
      tls: true,
      protocol: 'https',
    });
    const plain = await adapter.fetch(new Request('http://api.test/only?'));
    expect(await plain.json()).toMatchObject({ path: '/only', query: '', tls: false });
  });

  it("hands the pipeline a client's header as the runtime accepted it, control characters included", async () => {
    // WHATWG Headers keep a control character other than CR, LF and NUL (RFC 9110 §5.5 lets a
    // recipient keep it); the checks of MultiValueHeaders are for what an application sends.
    const app = new RestApplication({ logger });
    app.get('/note', ({ headers }) => ({
      note: headers.get('x-note'),
      names: [...headers.names()],
    }));
    const response = await new FetchAdapter(app).fetch(
      new Request('http://x/note', {
        headers: { 'X-Note': 'a\u0001b', Accept: 'application/json' },
      }),
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ note: 'a\u0001b', names: ['accept', 'x-note'] });
  });

  it('is bound, so it can be handed around on its own', async () => {
    const { fetch: handler } = adapter;
    expect((await handler(new Request('http://x/'))).status).toBe(200);
  });

  it('hands the pipeline exactly the path and query of any request URL', async () => {
    // Every target echoed: dot segments (`%2e.` is `..`) can lead anywhere, `/` included.
    const echoApp = new RestApplication({ logger });
    echoApp.get('/', echoTarget);
    echoApp.get('/{rest*}', echoTarget);
    echoApp.errorHandler(echoTarget);
    const echoing = new FetchAdapter(echoApp);
    const pathCharacter = fc.oneof(
      fc.constantFrom(..."abcXYZ019-._~!$&'()*+,;=:@/".split('')),
      fc.integer({ min: 0, max: 255 }).map((byte) => `%${byte.toString(16).padStart(2, '0')}`),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(pathCharacter, { maxLength: 30 }),
        fc.option(
          fc.array(fc.oneof(pathCharacter, fc.constantFrom('?', '=', '&')), { maxLength: 20 }),
        ),
        async (pathParts, queryParts) => {
          const query = queryParts === null ? '' : `?${queryParts.join('')}`;
          const request = new Request(`http://h.test/p/${pathParts.join('')}${query}`);
          // What the runtime's own URL parser makes of it is the reference.
          const url = new URL(request.url);
          const response = await echoing.fetch(request);
          const body = (await response.json()) as { path: string; query: string };
          expect(body.path).toBe(url.pathname);
          expect(body.query).toBe(url.search.slice(1));
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('responses', () => {
  it('keeps every Set-Cookie separate', async () => {
    const response = await adapter.fetch(new Request('http://x/cookies'));
    expect(response.headers.getSetCookie()).toEqual([
      'a=1; Path=/',
      expect.stringMatching(/^b=/),
      'c=3; HttpOnly',
    ]);
  });

  it('answers HEAD with the GET headers and no body', async () => {
    const get = await adapter.fetch(new Request('http://x/'));
    const head = await adapter.fetch(new Request('http://x/', { method: 'HEAD' }));
    expect(head.status).toBe(200);
    expect(head.body).toBeNull();
    expect(head.headers.get('content-length')).toBe(get.headers.get('content-length'));
    expect(head.headers.get('content-type')).toBe('application/json');
  });

  it('streams a generator only as fast as it is read, and stops it on cancel', async () => {
    events.length = 0;
    const response = await adapter.fetch(new Request('http://x/endless'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Nothing is read ahead of the consumer.
    expect(events.filter((event) => event.startsWith('chunk')).length).toBeLessThanOrEqual(1);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = '';
    for (let i = 0; i < 4; i++) text += decoder.decode((await reader.read()).value);
    expect(text).toBe('text 0;bytes 1;text 2;bytes 3;');
    await reader.cancel();
    expect(events).toContain('finally');
  });

  it.each([false, true])(
    'lets go of a Node stream waiting for its next chunk when the consumer cancels (compressed: %s)',
    async (compressed) => {
      const { PassThrough } = await import('node:stream');
      const errors: string[] = [];
      const app = new RestApplication({
        logger: { ...silentLogger, error: (message) => void errors.push(message) },
      });
      let destroyed = false;
      const route = app.get('/idle', () => {
        const stream = new PassThrough();
        stream.write('first');
        stream.on('close', () => {
          destroyed = true;
        });
        return new Response(200, stream, { contentType: 'text/plain' });
      });
      if (compressed) route.compress();
      const idle = new FetchAdapter(app);
      const response = await idle.fetch(
        new Request('http://x/idle', { headers: { 'Accept-Encoding': 'gzip' } }),
      );
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      expect((await reader.read()).done).toBe(false);
      // A read waits for the next chunk (as a server piping the body to a client does).
      const waiting = reader.read();
      await new Promise((r) => setTimeout(r, 20));
      await reader.cancel();
      expect((await waiting).done).toBe(true);
      const deadline = Date.now() + 2_000;
      while (!destroyed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      expect(destroyed).toBe(true);
      // A client that left is no failure: nothing is logged.
      await new Promise((r) => setTimeout(r, 20));
      expect(errors).toEqual([]);
    },
  );

  it('a body read before the adapter fails only the routes that read it, as a logged 500', async () => {
    const errors: string[] = [];
    const app = new RestApplication({
      logger: {
        ...silentLogger,
        error: (_message, fields) => void errors.push(String(fields?.error)),
      },
    }).cors({ origin: '*' });
    app.post('/ping', () => ({ pong: true }));
    app.post('/echo', ({ request }) => request.text());
    const used = async (path: string) => {
      const request = new Request(`http://x${path}`, { method: 'POST', body: 'hello' });
      await request.text();
      return new FetchAdapter(app).fetch(request);
    };
    const ping = await used('/ping');
    expect([ping.status, await ping.json()]).toEqual([200, { pong: true }]);
    const echo = await used('/echo');
    // The application's error path: its CORS headers and request id, its JSON error body.
    expect(echo.status).toBe(500);
    expect(echo.headers.get('access-control-allow-origin')).toBe('*');
    expect(echo.headers.get('x-request-id')).not.toBeNull();
    expect(errors.join('\n')).toContain('read before the request reached the Fetch adapter');
  });

  it('lets go of a body cancelled before its first read: a stream of declared length, a file', async () => {
    const { PassThrough } = await import('node:stream');
    const { readdir, readlink } = await import('node:fs/promises');
    const app = new RestApplication({ logger: silentLogger });
    let destroyed = false;
    app.get('/declared', () => {
      const stream = new PassThrough();
      stream.on('close', () => {
        destroyed = true;
      });
      stream.write('12345');
      return new Response(200, stream, {
        contentType: 'text/plain',
        headers: { 'Content-Length': '10' },
      });
    });
    const path = join(directory, 'large.bin');
    await writeFile(path, new Uint8Array(1 << 20));
    app.mount('/files', new StaticRouter(directory));
    const early = new FetchAdapter(app);
    // Well before a collection would close what was left open (about 2 s in this suite).
    const eventually = async (holds: () => Promise<boolean> | boolean) => {
      const deadline = Date.now() + 500;
      while (!(await holds()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      return holds();
    };
    // A client that leaves before the body begins (a browser navigating away): the source held
    // to its Content-Length is let go, as one cancelled mid-body is.
    await (await early.fetch(new Request('http://x/declared'))).body?.cancel();
    expect(await eventually(() => destroyed)).toBe(true);
    const openOnFile = async () => {
      const links = await Promise.all(
        (await readdir('/proc/self/fd')).map((fd) =>
          readlink(`/proc/self/fd/${fd}`).catch(() => ''),
        ),
      );
      return links.filter((link) => link === path).length;
    };
    // Left open, a descriptor is closed by a collection at some point, with a warning: either
    // shows that the body did not let go of its file.
    const warnings: string[] = [];
    const onWarning = (warning: Error) => void warnings.push(warning.message);
    process.on('warning', onWarning);
    try {
      for (let i = 0; i < 5; i++) {
        await (await early.fetch(new Request('http://x/files/large.bin'))).body?.cancel();
      }
      expect(await eventually(async () => (await openOnFile()) === 0)).toBe(true);
      expect(warnings.filter((message) => message.includes('file descriptor'))).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('streams a file, and only the selected range of it', async () => {
    const whole = await adapter.fetch(new Request('http://x/file'));
    expect(whole.headers.get('content-length')).toBe('15');
    expect(whole.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await whole.text()).toBe('hello file body');
    const slice = await adapter.fetch(new Request('http://x/file-slice'));
    expect(slice.status).toBe(206);
    expect(await slice.text()).toBe('file');
  });
});

describe('request bodies', () => {
  it('reads a streamed body', async () => {
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array([1, 2]));
        controller.enqueue(new Uint8Array([3]));
        controller.close();
      },
    });
    const response = await adapter.fetch(
      new Request('http://x/echo', {
        method: 'POST',
        body: stream,
        duplex: 'half',
        headers: { 'content-type': 'application/octet-stream' },
      }),
    );
    expect(Array.from(new Uint8Array(await response.arrayBuffer()))).toEqual([1, 2, 3]);
  });

  it('stops reading a streamed body at the limit and answers 413', async () => {
    let pulled = 0;
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 256;
        controller.enqueue(new Uint8Array(256));
      },
      cancel() {
        cancelled = true;
      },
    });
    const response = await adapter.fetch(
      new Request('http://x/echo', {
        method: 'POST',
        body: stream,
        duplex: 'half',
        headers: { 'content-type': 'application/octet-stream' },
      }),
    );
    expect(response.status).toBe(413);
    expect(pulled).toBeLessThan(4096);
    expect(cancelled).toBe(true);
  });

  it('takes a body declared or found empty as none, and any other stream as content', async () => {
    const search = (body: Uint8Array, headers: Record<string, string>) =>
      adapter.fetch(new Request('http://x/search', { method: 'POST', body, headers }));
    // A runtime may hand an empty stream for Content-Length: 0; it is still no body.
    const empty = await search(new Uint8Array(0), { 'content-length': '0' });
    expect(empty.status).toBe(200);
    expect(await empty.json()).toEqual({ tag: null });
    // An empty stream without a length (what an HTTP/2 or chunked request can be) reads as none.
    const unmeasured = await search(new Uint8Array(0), {});
    expect(unmeasured.status).toBe(200);
    expect(await unmeasured.json()).toEqual({ tag: null });
    const untyped = await search(new TextEncoder().encode('{"tag":"a"}'), {});
    expect(untyped.status).toBe(415);
  });

  it('answers 413 from Content-Length without reading', async () => {
    const response = await adapter.fetch(
      new Request('http://x/echo', {
        method: 'POST',
        body: 'x'.repeat(2048),
        headers: { 'content-type': 'text/plain' },
      }),
    );
    expect(response.status).toBe(413);
  });
});

describe('startup', () => {
  it('runs startup once, before the first request', async () => {
    let runs = 0;
    const app = new RestApplication({ logger }).onStartup('greeting', () => {
      runs++;
      return 'hi';
    });
    app.get('/', ({ greeting }) => greeting);
    const lazy = new FetchAdapter(app);
    expect(runs).toBe(0);
    const [a, b] = await Promise.all([
      lazy.fetch(new Request('http://x/')),
      lazy.fetch(new Request('http://x/')),
    ]);
    expect([await a.text(), await b.text()]).toEqual(['hi', 'hi']);
    expect(runs).toBe(1);
  });

  it("answers the application's 500 echoing the request id when the runtime refuses a header", async () => {
    lines.length = 0;
    const app = new RestApplication({ logger });
    // The core refuses such a value set through its API; raw pairs are taken as they are.
    app.get('/name', () => {
      const response = new Response(200, 'ok');
      response.headers = MultiValueHeaders.fromRawPairs(['X-Author', 'Łukasz \u{1F600}']);
      return response;
    });
    const response = await new FetchAdapter(app).fetch(
      new Request('http://x/name', { headers: { 'X-Request-ID': 'trace-7' } }),
    );
    expect(response.status).toBe(500);
    expect(response.headers.get('x-request-id')).toBe('trace-7');
    expect(await response.json()).toMatchObject({ error: 'Internal Server Error', path: '/name' });
    const failed = lines.find(
      (line) => line.message === 'Response could not be sent; answering 500',
    );
    expect(failed?.fields?.requestId).toBe('trace-7');
  });

  it('answers 500 while startup fails, one error line per attempt, and serves once it starts', async () => {
    lines.length = 0;
    let reachable = false;
    const app = new RestApplication({ logger }).onStartup('db', () => {
      if (!reachable) throw new Error('database unreachable');
      return 'connected';
    });
    app.get('/', ({ db }) => db);
    const broken = new FetchAdapter(app);
    const first = await broken.fetch(new Request('http://x/'));
    const second = await broken.fetch(new Request('http://x/'));
    expect([first.status, second.status]).toEqual([500, 500]);
    expect(await first.text()).not.toContain('database unreachable');
    expect(lines.filter((line) => line.level === 'error')).toHaveLength(2);
    reachable = true;
    const third = await broken.fetch(new Request('http://x/'));
    expect([third.status, await third.text()]).toEqual([200, 'connected']);
  });
});

describe('over real HTTP through a Fetch-style server', () => {
  it('streams JSON in and a streamed body out, with cookies intact', async () => {
    const { origin, close } = await listenFetch(adapter.fetch);
    try {
      const posted = await fetch(`${origin}/json`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ list: [1, 2, 3] }),
      });
      expect(await posted.json()).toEqual({ list: [1, 2, 3] });
      const cookies = await fetch(`${origin}/cookies`);
      expect(cookies.headers.getSetCookie()).toHaveLength(3);
      const streamed = await fetch(`${origin}/file`);
      expect(await streamed.text()).toBe('hello file body');
    } finally {
      await close();
    }
  });

  it('reads back as text an event id an EventSource returns as UTF-8 in Last-Event-ID', async () => {
    const events = new RestApplication({ logger: silentLogger });
    events.get('/events', ({ lastEventId }) =>
      sse(
        (async function* () {
          yield { id: 'été', data: `after ${lastEventId}` };
        })(),
      ),
    );
    const { origin, close } = await listenFetch(new FetchAdapter(events).fetch);
    try {
      // A header is octets: a browser sends the id as its UTF-8, one character per octet here.
      const sentId = new TextEncoder()
        .encode('été')
        .reduce((text, octet) => text + String.fromCharCode(octet), '');
      const again = await fetch(`${origin}/events`, { headers: { 'Last-Event-ID': sentId } });
      expect(await again.text()).toBe('id: été\ndata: after été\n\n');
    } finally {
      await close();
    }
  });
});
