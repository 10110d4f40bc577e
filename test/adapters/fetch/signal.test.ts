/**
 * The Fetch adapter and the request's signal: the `signal` injectable follows the incoming
 * WHATWG request's own signal, and a cancelled event stream stops its producer.
 */
import { EventEmitter, on } from 'node:events';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { FetchAdapter } from '../../../src/adapters/fetch/index.js';
import { RestApplication, silentLogger, sse } from '../../../src/index.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('FetchAdapter signal', () => {
  it("fires the injected signal when the incoming request's signal aborts", async () => {
    const app = new RestApplication({ logger: silentLogger });
    let seen: AbortSignal | undefined;
    app.get(
      '/slow',
      ({ signal }) =>
        new Promise((resolve) => {
          seen = signal;
          signal.addEventListener('abort', () => resolve('stopped'));
        }),
    );
    const adapter = new FetchAdapter(app);
    const client = new AbortController();
    const answered = adapter.fetch(new Request('http://localhost/slow', { signal: client.signal }));
    await sleep(10);
    expect(seen?.aborted).toBe(false);
    client.abort();
    expect(seen?.aborted).toBe(true);
    expect(await (await answered).text()).toBe('stopped');
  });

  it('starts nothing that asks for the signal of a request aborted before it', async () => {
    const ran: string[] = [];
    const app = new RestApplication({ logger: silentLogger }).dependency('seen', ({ signal }) => {
      ran.push('dependency');
      return signal.aborted;
    });
    app.get('/check', ({ seen }) => {
      ran.push('handler');
      return { seen };
    });
    app.get('/plain', () => {
      ran.push('plain');
      return 'ok';
    });
    const client = new AbortController();
    client.abort();
    const adapter = new FetchAdapter(app);
    const response = await adapter.fetch(
      new Request('http://localhost/check', { signal: client.signal }),
    );
    expect(response.status).toBe(503);
    // A route that never asks for the signal cannot tell, and answers as usual.
    const plain = await adapter.fetch(
      new Request('http://localhost/plain', { signal: client.signal }),
    );
    expect(plain.status).toBe(200);
    expect(ran).toEqual(['plain']);
  });

  it('stops an event stream producer when the response stream is cancelled', async () => {
    const app = new RestApplication({ logger: silentLogger });
    let finished = false;
    app.get('/events', () =>
      sse(
        (async function* () {
          try {
            for (let i = 0; ; i++) {
              yield { id: String(i), data: 'tick' };
              await sleep(5);
            }
          } finally {
            finished = true;
          }
        })(),
      ),
    );
    const response = await new FetchAdapter(app).fetch(new Request('http://localhost/events'));
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe('id: 0\ndata: tick\n\n');
    await reader.cancel();
    await sleep(20);
    expect(finished).toBe(true);
  });

  it('fires the injected signal when the response stream is cancelled, so a waiting source stops at once', async () => {
    const bus = new EventEmitter();
    const app = new RestApplication({ logger: silentLogger });
    const events: string[] = [];
    let signalOfRequest: AbortSignal | undefined;
    app.get('/messages', ({ signal }) => {
      signalOfRequest = signal;
      return sse(
        (async function* () {
          try {
            yield 'connected';
            for await (const [message] of on(bus, 'message', { signal })) yield String(message);
          } finally {
            events.push('released');
          }
        })(),
      );
    });
    const response = await new FetchAdapter(app).fetch(new Request('http://localhost/messages'));
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: connected\n\n');
    const waiting = reader.read();
    await sleep(10);
    await reader.cancel();
    expect(await waiting).toEqual({ done: true, value: undefined });
    expect(signalOfRequest?.aborted).toBe(true);
    expect(signalOfRequest?.reason).toMatchObject({ name: 'AbortError' });
    // No message came: the source stopped because the consumer left.
    await sleep(20);
    expect(events).toEqual(['released']);
    expect(bus.listenerCount('message')).toBe(0);
  });

  it.each(['ReadableStream', 'Readable'] as const)(
    'lets go at once of an sse() feed that is a %s waiting for its next event when the body is cancelled',
    async (kind) => {
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
      const response = await new FetchAdapter(app).fetch(new Request('http://localhost/events'));
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: first\n\n');
      const waiting = reader.read();
      await sleep(10);
      await reader.cancel();
      expect(await waiting).toEqual({ done: true, value: undefined });
      await sleep(20);
      expect(released).toEqual(['released']);
    },
  );
});
