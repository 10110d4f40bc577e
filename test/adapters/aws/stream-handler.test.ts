/**
 * `CloudGatewayAdapter.streamHandler` (Lambda response streaming for Function URLs) against a
 * stand-in of the runtime's `awslambda` global: the prelude first, the body as it is produced,
 * bounded memory for a 50 MB body, a client that goes away, failures after the prelude, event
 * streams and compression.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CloudGatewayAdapter } from '../../../src/adapters/aws/index.js';
import { Response, RestApplication, SetupError, silentLogger, sse } from '../../../src/index.js';
import { captureLogger, v2Event } from './fixtures.js';
import { installRuntime, invoke, PRELUDE_CONTENT_TYPE } from './stream-runtime.js';

function urlEvent(path: string, headers: Record<string, string> = {}, method = 'GET') {
  return v2Event({ method, path, headers }, { functionUrl: true });
}

function adapterFor(app: RestApplication) {
  return new CloudGatewayAdapter(app, { metricsPublisher: null });
}

describe('streamHandler outside the Lambda runtime', () => {
  it('is a setup error naming what is missing, only when used', () => {
    const adapter = adapterFor(new RestApplication({ logger: silentLogger }));
    expect(typeof adapter.handler).toBe('function');
    expect(() => adapter.streamHandler).toThrow(SetupError);
    expect(() => adapter.streamHandler).toThrow(/awslambda/);
  });
});

describe('streamHandler', () => {
  let uninstall: () => void;
  beforeEach(() => {
    uninstall = installRuntime();
  });
  afterEach(() => uninstall());

  it('sends the prelude (status, headers, cookies) as JSON and 8 NUL bytes, then the body', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.get('/hello', () =>
      new Response(201, { hello: 'world' }, { headers: { 'X-Trace': 'abc' } })
        .setCookie('a', '1', { path: '/' })
        .setCookie('b', '2'),
    );
    const adapter = adapterFor(app);
    expect(adapter.streamHandler).toBe(adapter.streamHandler);
    const { stream, done } = invoke(adapter.streamHandler, urlEvent('/hello'));
    expect((await done).error).toBeUndefined();
    expect(stream.contentType).toBe(PRELUDE_CONTENT_TYPE);
    const all = Buffer.concat(stream.chunks.map((chunk) => chunk.bytes));
    const json = all.indexOf(0);
    expect([...all.subarray(json, json + 8)]).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    const { prelude, body } = stream.parsed();
    expect(prelude.statusCode).toBe(201);
    expect(prelude.headers['X-Trace']).toBe('abc');
    expect(prelude.headers['Content-Type']).toBe('application/json');
    expect(prelude.cookies).toEqual(['a=1; Path=/', 'b=2']);
    expect(Object.keys(prelude.headers).map((name) => name.toLowerCase())).not.toContain(
      'set-cookie',
    );
    expect(JSON.parse(body.toString())).toEqual({ hello: 'world' });
    expect(stream.writableFinished).toBe(true);
  });

  it('writes the prelude of an empty answer too (204, HEAD)', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.delete('/things/{id}', () => undefined);
    app.get('/page', () => 'x'.repeat(100));
    const adapter = adapterFor(app);
    const deleted = invoke(adapter.streamHandler, urlEvent('/things/1', {}, 'DELETE'));
    await deleted.done;
    expect(deleted.stream.parsed().prelude.statusCode).toBe(204);
    expect(deleted.stream.parsed().body.length).toBe(0);
    const head = invoke(adapter.streamHandler, urlEvent('/page', {}, 'HEAD'));
    await head.done;
    const { prelude, body } = head.stream.parsed();
    expect(prelude.headers['Content-Length']).toBe('100');
    expect(body.length).toBe(0);
  });

  it('sends the prelude and the first chunk before the producer makes its last', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let lastProducedAt = 0;
    const app = new RestApplication({ logger: silentLogger });
    app.get(
      '/slow',
      () =>
        new Response(
          200,
          (async function* () {
            yield 'first\n';
            await gate;
            lastProducedAt = performance.now();
            yield 'last\n';
          })(),
          { contentType: 'text/plain' },
        ),
    );
    const { stream, done } = invoke(adapterFor(app).streamHandler, urlEvent('/slow'));
    const deadline = Date.now() + 2000;
    while (
      !Buffer.concat(stream.chunks.map((c) => c.bytes)).includes('first') &&
      Date.now() < deadline
    ) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(stream.parsed().prelude.statusCode).toBe(200);
    expect(stream.parsed().body.toString()).toBe('first\n');
    release();
    await done;
    const first = stream.chunks.find((chunk) => chunk.bytes.toString() === 'first\n');
    expect(first?.at).toBeLessThan(lastProducedAt);
    expect(stream.parsed().body.toString()).toBe('first\nlast\n');
  });

  it('sends headers named like Object.prototype members in the prelude as data', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.get(
      '/odd',
      () =>
        new Response(200, 'ok', {
          headers: [
            ['__proto__', 'a'],
            ['constructor', 'b'],
            ['__proto__', 'c'],
          ],
        }),
    );
    const { stream, done } = invoke(adapterFor(app).streamHandler, urlEvent('/odd'));
    expect((await done).error).toBeUndefined();
    const { headers } = stream.parsed().prelude;
    expect(Object.getOwnPropertyDescriptor(headers, '__proto__')?.value).toBe('a, c');
    expect(Object.getOwnPropertyDescriptor(headers, 'constructor')?.value).toBe('b');
  });

  it('streams 50 MB with bounded memory: the producer waits for the stream to drain', async () => {
    const CHUNK = 64 * 1024;
    const COUNT = 800; // 50 MiB
    let produced = 0;
    let maxAhead = 0;
    const yielded: WeakRef<ArrayBufferLike>[] = [];
    let streamRef: { bytesWritten: number } = { bytesWritten: 0 };
    const app = new RestApplication({ logger: silentLogger });
    app.get(
      '/large',
      () =>
        new Response(
          200,
          (async function* () {
            const chunk = new Uint8Array(CHUNK).fill(120);
            for (let i = 0; i < COUNT; i++) {
              produced += CHUNK;
              maxAhead = Math.max(maxAhead, produced - streamRef.bytesWritten);
              // A fresh copy each time: memory grows if anything holds on to chunks.
              const copy = chunk.slice();
              yielded.push(new WeakRef(copy.buffer)); // alive while any view of it is
              yield copy;
            }
          })(),
          { contentType: 'application/octet-stream' },
        ),
    );
    // Collections on demand, so RSS shows what is alive rather than garbage not yet reclaimed.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    gc();
    // After a collection, a chunk that is still alive is one something holds on to. Byte counts
    // move with V8's concurrent sweeping and the allocator, so they only get loose bounds.
    const before = process.memoryUsage();
    let peakBuffers = before.arrayBuffers;
    let peakRss = before.rss;
    let mostAlive = 0;
    const sampler = setInterval(() => {
      gc();
      mostAlive = Math.max(mostAlive, yielded.filter((ref) => ref.deref() !== undefined).length);
      const usage = process.memoryUsage();
      peakBuffers = Math.max(peakBuffers, usage.arrayBuffers);
      peakRss = Math.max(peakRss, usage.rss);
    }, 20);
    const { stream, done } = invoke(adapterFor(app).streamHandler, urlEvent('/large'), { keep: 3 });
    streamRef = stream;
    expect((await done).error).toBeUndefined();
    clearInterval(sampler);
    expect(stream.bytesWritten - stream.chunks[0]!.bytes.length - 8).toBe(CHUNK * COUNT);
    // Never more than the stream's buffer and a couple of chunks ahead of what was written.
    expect(maxAhead).toBeLessThanOrEqual(16 * 1024 + 3 * CHUNK);
    const buffered = peakBuffers - before.arrayBuffers;
    const growth = peakRss - before.rss;
    console.info(
      `50 MiB streamed; at most ${mostAlive} of ${COUNT} chunks alive at once, buffers held at ` +
        `most ${(buffered / 2 ** 20).toFixed(1)} MiB, RSS grew by at most ${(growth / 2 ** 20).toFixed(1)} MiB`,
    );
    // Holding the body would keep all 800 chunks, its 50 MiB, alive; a copy of it would show in RSS.
    expect(mostAlive).toBeLessThanOrEqual(8);
    expect(growth).toBeLessThan(64 * 2 ** 20);
  }, 60_000);

  it('a client that goes away stops the producer and fires the signal', async () => {
    let stopped = false;
    let aborted = false;
    const app = new RestApplication({ logger: silentLogger });
    app.get('/endless', ({ signal }) => {
      signal.addEventListener('abort', () => {
        aborted = true;
      });
      return new Response(
        200,
        (async function* () {
          try {
            for (;;) {
              yield 'tick\n';
              await new Promise((resolve) => setTimeout(resolve, 1));
            }
          } finally {
            stopped = true;
          }
        })(),
        { contentType: 'text/plain' },
      );
    });
    const { stream, done } = invoke(adapterFor(app).streamHandler, urlEvent('/endless'));
    while (stream.writes < 5) await new Promise((resolve) => setTimeout(resolve, 2));
    stream.destroy();
    await done;
    const deadline = Date.now() + 2000;
    while (!(stopped && aborted) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(aborted).toBe(true);
    expect(stopped).toBe(true);
  });

  it.each(['ReadableStream', 'Readable'] as const)(
    'a client that goes away while a %s waits for its next chunk lets go of it and ends the invocation',
    async (kind) => {
      const { PassThrough } = await import('node:stream');
      const released: string[] = [];
      const idle = () => {
        if (kind === 'Readable') {
          const stream = new PassThrough();
          stream.write('first\n');
          stream.on('close', () => released.push('released'));
          return stream;
        }
        return new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new TextEncoder().encode('first\n'));
          },
          cancel() {
            released.push('released');
          },
        });
      };
      const app = new RestApplication({ logger: silentLogger });
      app.get('/feed', () => new Response(200, idle(), { contentType: 'text/plain' }));
      const { stream, done } = invoke(adapterFor(app).streamHandler, urlEvent('/feed'));
      while (stream.writes < 2) await new Promise((resolve) => setTimeout(resolve, 2));
      stream.destroy();
      // The invocation settles (it was left pending until the Lambda timeout), without a failure.
      expect(await done).toEqual({ error: undefined });
      expect(released).toEqual(['released']);
    },
  );

  it.each(['ReadableStream', 'Readable'] as const)(
    'a client that goes away while an sse() feed that is a %s waits for its next event lets go of it',
    async (kind) => {
      const { Readable } = await import('node:stream');
      const released: string[] = [];
      const first = { data: 'first' };
      const feed = () => {
        if (kind === 'Readable') {
          const stream = new Readable({ objectMode: true, read() {} });
          stream.push(first);
          stream.on('close', () => released.push('released'));
          return stream;
        }
        return new ReadableStream({
          start(controller) {
            controller.enqueue(first);
          },
          cancel() {
            released.push('released');
          },
        });
      };
      const app = new RestApplication({ logger: silentLogger });
      app.get('/events', () => sse(feed()));
      const { stream, done } = invoke(adapterFor(app).streamHandler, urlEvent('/events'));
      while (stream.writes < 2) await new Promise((resolve) => setTimeout(resolve, 2));
      stream.destroy();
      expect(await done).toEqual({ error: undefined });
      expect(released).toEqual(['released']);
    },
  );

  it('ends the invocation after the producer cleaned up, also when the signal stopped it', async () => {
    // The runtime may freeze the environment once the invocation ends: a `finally` that runs
    // later (releasing a database connection) might never run.
    // A handler that asks for the signal has its body bound to it, then given the deadline:
    // the invocation waits for the innermost cleanup all the same.
    for (const [requestTimeout, asksForSignal] of [
      [undefined, false],
      [30_000, false],
      [30_000, true],
    ] as const) {
      const events: string[] = [];
      const app = new RestApplication({ logger: silentLogger, requestTimeout });
      const rows = () =>
        (async function* () {
          try {
            for (;;) {
              yield 'row\n';
              await new Promise((resolve) => setTimeout(resolve, 5));
            }
          } finally {
            await new Promise((resolve) => setTimeout(resolve, 150));
            events.push('released');
          }
        })();
      if (asksForSignal) app.get('/rows', ({ signal }) => (signal.aborted ? 'gone' : rows()));
      else app.get('/rows', rows);
      const { stream, done } = invoke(adapterFor(app).streamHandler, urlEvent('/rows'));
      while (stream.writes < 3) await new Promise((resolve) => setTimeout(resolve, 2));
      stream.destroy();
      await done;
      expect(events, `${requestTimeout} ${asksForSignal}`).toEqual(['released']);
    }
  });

  it('ends the invocation within a second of letting go of a producer stuck in an await', async () => {
    // A generator paused in an `await` can only return once that await settles, which for an
    // upstream that never answers is never: the invocation (billed until it ends) must not wait.
    const never = new Promise<never>(() => {});
    const stuck = () =>
      (async function* () {
        yield 'first\n';
        await never;
      })();
    const app = new RestApplication({ logger: silentLogger, requestTimeout: 100 });
    app.get('/gone', stuck);
    app.get('/timed-out', stuck);
    const gone = invoke(adapterFor(app).streamHandler, urlEvent('/gone'));
    while (gone.stream.writes < 2) await new Promise((resolve) => setTimeout(resolve, 2));
    const left = Date.now();
    gone.stream.destroy();
    await gone.done;
    expect(Date.now() - left).toBeLessThan(3_000);
    // The request's deadline stops it too: the invocation fails, as any failure after the prelude.
    const started = Date.now();
    const timedOut = await invoke(adapterFor(app).streamHandler, urlEvent('/timed-out')).done;
    expect((timedOut.error as Error).name).toBe('TimeoutError');
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('a failure after the prelude rejects the invocation, logged, with the stream ended', async () => {
    const { logger, lines } = captureLogger();
    const app = new RestApplication({ logger });
    app.get(
      '/broken',
      () =>
        new Response(
          200,
          (async function* () {
            yield 'partial';
            throw new Error('database went away');
          })(),
          { contentType: 'text/plain' },
        ),
    );
    const { stream, done } = invoke(adapterFor(app).streamHandler, urlEvent('/broken'));
    const { error } = await done;
    expect((error as Error).message).toBe('database went away');
    expect(stream.parsed().prelude.statusCode).toBe(200);
    expect(stream.parsed().body.toString()).toBe('partial');
    expect(stream.writableEnded).toBe(true);
    const failed = lines.find(
      (line) => line.level === 'error' && /after the status/.test(line.message),
    );
    // The line names the request, like every line written for it.
    expect(failed?.fields?.requestId).toEqual(expect.any(String));
    expect(failed?.fields?.requestId).not.toBe('');
  });

  it.each([
    ['without a Content-Length', undefined],
    ['with its Content-Length', { 'Content-Length': '10' }],
  ] as const)(
    'a chunk neither text nor a Uint8Array fails the invocation, logged: %s',
    async (_, headers) => {
      // docs/streams.md: such a chunk fails the stream, as on Node and Fetch; an Int16Array was
      // written as its 6 bytes and then counted as 3 against its Content-Length.
      const { logger, lines } = captureLogger();
      const app = new RestApplication({ logger });
      let released = false;
      app.get(
        '/pcm',
        () =>
          new Response(
            200,
            (async function* () {
              try {
                yield 'hdr:';
                yield new Int16Array([0x4241, 0x4443, 0x4645]);
              } finally {
                released = true;
              }
            })(),
            { contentType: 'text/plain', headers },
          ),
      );
      const { stream, done } = invoke(adapterFor(app).streamHandler, urlEvent('/pcm'));
      const { error } = await done;
      expect((error as Error).message).toBe(
        'A response stream chunk must be a string or a Uint8Array, got Int16Array',
      );
      expect(stream.parsed().prelude.statusCode).toBe(200);
      expect(stream.parsed().body.toString()).toBe('hdr:');
      expect(released).toBe(true);
      const failed = lines.filter((line) => line.level === 'error');
      expect(failed).toHaveLength(1);
      expect(failed[0]?.message).toMatch(/after the status/);
    },
  );

  it('sends server-sent events, which the buffered handler refuses', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.get('/events', () =>
      sse(
        (async function* () {
          yield { event: 'greeting', data: 'hello' };
          yield 'bye';
        })(),
      ),
    );
    const adapter = adapterFor(app);
    const { stream, done } = invoke(adapter.streamHandler, urlEvent('/events'));
    await done;
    const { prelude, body } = stream.parsed();
    expect(prelude.headers['Content-Type']).toBe('text/event-stream');
    expect(body.toString()).toBe('event: greeting\ndata: hello\n\ndata: bye\n\n');
    const buffered = await adapter.handleEvent(urlEvent('/events'));
    expect(buffered.statusCode).toBe(500);
  });

  it('compresses: Content-Encoding in the prelude, compressed bytes in the body', async () => {
    const app = new RestApplication({ logger: silentLogger }).compress();
    const rows = Array.from({ length: 500 }, (_, i) => `row ${i}\n`);
    app.get(
      '/rows',
      () =>
        new Response(
          200,
          (async function* () {
            yield* rows;
          })(),
          { contentType: 'text/plain' },
        ),
    );
    const { stream, done } = invoke(
      adapterFor(app).streamHandler,
      urlEvent('/rows', { 'accept-encoding': 'gzip' }),
    );
    await done;
    const { prelude, body } = stream.parsed();
    expect(prelude.headers['Content-Encoding']).toBe('gzip');
    expect(prelude.headers.Vary).toBe('Accept-Encoding');
    expect(gunzipSync(body).toString()).toBe(rows.join(''));
  });
});
