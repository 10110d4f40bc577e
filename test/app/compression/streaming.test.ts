/**
 * Compressed streams leave as they are produced: over real HTTP (the Node adapter on 127.0.0.1,
 * a `node:http` client decompressing as bytes arrive) and through the Fetch adapter, the client
 * holds the first decompressed chunk while the producer is still waiting to make its last.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { constants, createBrotliDecompress, createGunzip, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FetchAdapter } from '../../../src/adapters/fetch/index.js';
import { type ServeHandle, serve } from '../../../src/adapters/node/index.js';
import { Response, RestApplication, silentLogger, sse } from '../../../src/index.js';
import { memoryLogger } from '../../adapters/node/helpers.js';

/** A producer that yields `first`, then waits for the test's go-ahead before the last chunk. */
function gatedProducer() {
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let finished = false;
  let stopped = false;
  async function* produce() {
    try {
      yield `${'first chunk '.repeat(10)}\n`;
      await gate;
      yield 'last chunk\n';
      finished = true;
    } finally {
      stopped = true;
    }
  }
  return {
    produce,
    release: () => release(),
    finished: () => finished,
    stopped: () => stopped,
  };
}

/**
 * An event source that sends one event and then waits for events that never come, like a
 * subscription to a quiet bus: only its `return()` ends it.
 */
const quiet = {
  returned: false,
  source(): AsyncIterable<{ data: string }> {
    quiet.returned = false;
    let sent = false;
    let wake: (result: IteratorResult<{ data: string }>) => void = () => undefined;
    const iterator: AsyncIterator<{ data: string }> = {
      next: () => {
        if (!sent) {
          sent = true;
          return Promise.resolve({ done: false, value: { data: 'hello' } });
        }
        return new Promise((resolve) => {
          wake = resolve;
        });
      },
      return: () => {
        quiet.returned = true;
        wake({ done: true, value: undefined });
        return Promise.resolve({ done: true, value: undefined });
      },
    };
    return { [Symbol.asyncIterator]: () => iterator };
  },
};

function buildApp(producer: () => ReturnType<typeof gatedProducer>) {
  const app = new RestApplication({ logger: silentLogger }).compress();
  app.get(
    '/gated',
    () => new Response(200, producer().produce(), { contentType: 'text/plain; charset=utf-8' }),
  );
  app.get('/quiet-events', () => sse(quiet.source()));
  app.get('/events', () =>
    sse(
      (async function* () {
        yield { data: 'one' };
        yield { data: 'two' };
      })(),
    ),
  );
  return app;
}

describe('compressed streams over real HTTP (Node adapter)', () => {
  let current = gatedProducer();
  let server: ServeHandle;
  beforeAll(async () => {
    server = await serve(
      buildApp(() => current),
      { port: 0, host: '127.0.0.1', handleSignals: false },
    );
  });
  afterAll(async () => {
    await server.close();
  });

  function get(path: string, encoding: string): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      const outgoing = httpRequest(
        { host: '127.0.0.1', port: server.port, path, headers: { 'Accept-Encoding': encoding } },
        resolve,
      );
      outgoing.on('error', reject);
      outgoing.end();
    });
  }

  for (const [encoding, decompress] of [
    ['gzip', () => createGunzip()],
    ['br', () => createBrotliDecompress()],
  ] as const) {
    it(`${encoding}: the first decompressed bytes arrive before the producer makes its last chunk`, async () => {
      current = gatedProducer();
      const incoming = await get('/gated', encoding);
      expect(incoming.statusCode).toBe(200);
      expect(incoming.headers['content-encoding']).toBe(encoding);
      expect(incoming.headers['transfer-encoding']).toBe('chunked');
      expect(incoming.headers['content-length']).toBeUndefined();
      expect(incoming.headers.vary).toBe('Accept-Encoding');
      const text = incoming.pipe(decompress());
      let received = '';
      const firstArrived = new Promise<void>((resolve) => {
        text.on('data', (chunk: Buffer) => {
          received += chunk.toString();
          if (received.includes('\n')) resolve();
        });
      });
      const ended = new Promise<void>((resolve) => text.on('end', resolve));
      await firstArrived;
      // The client decompressed the first chunk while the producer still waits at its gate.
      expect(current.finished()).toBe(false);
      expect(received).toBe(`${'first chunk '.repeat(10)}\n`);
      current.release();
      await ended;
      expect(current.finished()).toBe(true);
      expect(received).toBe(`${'first chunk '.repeat(10)}\nlast chunk\n`);
    });
  }

  it('a client that goes away stops the producer', async () => {
    current = gatedProducer();
    const incoming = await get('/gated', 'gzip');
    await new Promise<void>((resolve) => incoming.once('data', () => resolve()));
    incoming.destroy();
    const deadline = Date.now() + 2000;
    while (!current.stopped() && Date.now() < deadline) {
      current.release();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(current.stopped()).toBe(true);
  });

  it("a client that leaves a compressed event stream ends the source's iteration", async () => {
    const incoming = await get('/quiet-events', 'gzip');
    expect(incoming.headers['content-encoding']).toBe('gzip');
    await new Promise<void>((resolve) => incoming.once('data', () => resolve()));
    incoming.destroy();
    const deadline = Date.now() + 2000;
    while (!quiet.returned && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(quiet.returned).toBe(true);
  });

  it('server-sent events are compressed event by event', async () => {
    const incoming = await get('/events', 'gzip');
    expect(incoming.headers['content-type']).toBe('text/event-stream');
    expect(incoming.headers['content-encoding']).toBe('gzip');
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    expect(gunzipSync(Buffer.concat(chunks)).toString()).toBe('data: one\n\ndata: two\n\n');
  });
});

/** Chunks that are neither text nor a `Uint8Array`, by the name the failure gives them. */
const wrongChunks: Record<string, () => unknown> = {
  Int16Array: () => new Int16Array([0x4241, 0x4443]),
  DataView: () => new DataView(new Uint8Array([65, 66, 67]).buffer),
  ArrayBuffer: () => new Uint8Array([65, 66, 67]).buffer,
  Number: () => 42,
};

describe('a stream with a chunk that is neither text nor a Uint8Array', () => {
  const cases = Object.keys(wrongChunks).flatMap((kind) => [
    [kind, 'gzip'],
    [kind, 'identity'],
  ]);
  it.each(cases)(
    'fails there over real HTTP, naming the %s (Accept-Encoding: %s)',
    async (kind, coding) => {
      const { lines, logger } = memoryLogger();
      const app = new RestApplication({ logger }).compress();
      app.get(
        '/typed',
        () =>
          new Response(
            200,
            (async function* () {
              yield 'ok:';
              yield wrongChunks[kind]?.() as string;
            })(),
            { contentType: 'text/plain' },
          ),
      );
      const server = await serve(app, { port: 0, host: '127.0.0.1', handleSignals: false });
      try {
        const outcome = await new Promise<{ body: Buffer; complete: boolean }>(
          (resolve, reject) => {
            const outgoing = httpRequest(
              {
                host: '127.0.0.1',
                port: server.port,
                path: '/typed',
                headers: { 'Accept-Encoding': coding },
              },
              (incoming) => {
                expect(incoming.headers['content-encoding']).toBe(
                  coding === 'gzip' ? 'gzip' : undefined,
                );
                const parts: Buffer[] = [];
                incoming.on('data', (chunk: Buffer) => parts.push(chunk));
                incoming.on('error', () => undefined);
                incoming.on('close', () =>
                  resolve({ body: Buffer.concat(parts), complete: incoming.complete }),
                );
              },
            );
            outgoing.on('error', reject);
            outgoing.end();
          },
        );
        // What came before it arrives; the cut shows, so the client takes no part for the whole.
        expect(outcome.complete).toBe(false);
        const text =
          coding === 'gzip'
            ? gunzipSync(outcome.body, { finishFlush: constants.Z_SYNC_FLUSH }).toString()
            : outcome.body.toString();
        expect(text).toBe('ok:');
        const failure = lines.find((line) => line.message === 'Response body stream failed');
        expect((failure?.fields?.error as Error | undefined)?.message).toBe(
          `A response stream chunk must be a string or a Uint8Array, got ${kind}`,
        );
      } finally {
        await server.close();
      }
    },
  );
});

describe('compressed streams through the Fetch adapter', () => {
  it('the first compressed chunk can be read and decompressed before the producer finishes', async () => {
    const current = gatedProducer();
    const adapter = new FetchAdapter(buildApp(() => current));
    const response = await adapter.fetch(
      new Request('http://localhost/gated', { headers: { 'Accept-Encoding': 'gzip' } }),
    );
    expect(response.headers.get('content-encoding')).toBe('gzip');
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    const partial = gunzipSync(first.value as Uint8Array, { finishFlush: constants.Z_SYNC_FLUSH });
    expect(partial.toString()).toBe(`${'first chunk '.repeat(10)}\n`);
    expect(current.finished()).toBe(false);
    current.release();
    const rest: Uint8Array[] = [first.value as Uint8Array];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      rest.push(value);
    }
    expect(gunzipSync(Buffer.concat(rest)).toString()).toBe(
      `${'first chunk '.repeat(10)}\nlast chunk\n`,
    );
  });
});
